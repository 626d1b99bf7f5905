/* Node facts from a fake /dev and /sys/class/infiniband, and the findings
 * doctor draws from them: /dev/shm, memlock, RDMA ports, risky variables. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../doctor/diagnose.h"
#include "check.h"
#include "test_doctor_tree.h"

static bool has(model *m, const char *id, enum severity sev)
{
	finding *f = findings_find(&m->fs, id);
	return f && f->severity == sev;
}

int main(void)
{
	checks c = { 0 };
	char root[] = "/tmp/ncclog-node-XXXXXX";
	if (!mkdtemp(root))
		return 1;
	tree_put(root, "dev/nvidia0", "");
	tree_put(root, "dev/nvidia1", "");
	tree_put(root, "dev/nvidiactl", "");
	tree_put(root, "dev/nvidia-uvm", "");
	tree_put(root, "ib/mlx5_0/ports/1/state", "4: ACTIVE\n");
	tree_put(root, "ib/mlx5_0/ports/1/link_layer", "InfiniBand\n");
	tree_put(root, "ib/mlx5_1/ports/1/state", "4: ACTIVE\n");
	tree_put(root, "ib/mlx5_1/ports/1/link_layer", "Ethernet\n");
	tree_put(root, "ib/mlx5_1/ports/2/state", "1: DOWN\n");
	tree_put(root, "ib/mlx5_1/ports/2/link_layer", "Ethernet\n");
	char dev[4200], ib[4200];
	snprintf(dev, sizeof dev, "%s/dev", root);
	snprintf(ib, sizeof ib, "%s/ib", root);
	node_paths paths = { root, dev, ib };
	char *env[] = { "PATH=/bin", "NCCL_IB_DISABLE=1", "NCCL_DEBUG=INFO", "TORCH_NCCL_BLOCKING_WAIT=1",
			"NCCL_ALGO=Ring", "NCCLX=1", NULL };

	doctor_facts f = { 0 };
	node_collect(&f.node, &paths, env, -1);
	CHECK(&c, f.node.gpus == 2 && !f.node.gpus_given, "gpus: %d", f.node.gpus);
	CHECK(&c, f.node.nib == 3, "ports: %zu", f.node.nib);
	CHECK(&c, f.node.nib == 3 && strcmp(f.node.ib[0].dev, "mlx5_0") == 0 && strcmp(f.node.ib[0].state, "ACTIVE") == 0 &&
		      strcmp(f.node.ib[2].state, "DOWN") == 0 && f.node.ib[2].port == 2,
	      "port facts");
	CHECK(&c, f.node.nenv == 4 && strcmp(f.node.env[0].name, "NCCL_ALGO") == 0, "env sorted, NCCL_/TORCH_NCCL_ only: %zu",
	      f.node.nenv);
	CHECK(&c, f.node.shm_ok, "statvfs");
	CHECK(&c, node_shm_need(8, 0) > 64ull << 20 && node_shm_need(1, 0) == 0, "need grows with GPUs");
	CHECK(&c, node_shm_need(8, 8u << 20) == 2 * node_shm_need(8, 0), "need follows NCCL_BUFFSIZE");
	f.node.shm_size = 64ull << 20; /* Docker's default */
	f.node.shm_free = f.node.shm_size;
	f.node.gpus = 8;
	f.node.memlock_unlimited = false;
	f.node.memlock_soft = 64 << 10;
	dif *lo = ifaces_add(&f.ifs, "lo");
	ipaddr_parse(SLICE_LIT("127.0.0.1"), &lo->addr);
	lo->prefix = 8;
	lo->up = lo->running = lo->loopback = true;
	doctor_predict(&f);
	CHECK(&c, strcmp(f.net, "Socket") == 0, "NCCL_IB_DISABLE=1: Socket (%s)", f.net);
	catalog cat = { 0 };
	model m;
	model_init(&m, &cat);
	doctor_report r;
	doctor_diagnose(&m, &f, &r);
	CHECK(&c, has(&m, "shm-too-small", SEV_ERROR), "64 MiB for 8 GPUs");
	CHECK(&c, has(&m, "ib-reg-mr-failed", SEV_WARNING), "memlock 64 KiB with RDMA ports");
	CHECK(&c, has(&m, "ib-disabled-by-env", SEV_WARNING), "IB disabled with ACTIVE ports");
	CHECK(&c, has(&m, "ib-setup-failed", SEV_WARNING), "IB and RoCE mixed");
	CHECK(&c, has(&m, "env-override", SEV_WARNING), "risky settings");
	CHECK(&c, has(&m, "socket-iface-loopback", SEV_ERROR), "only lo");
	finding *e = findings_find(&m.fs, "env-override");
	CHECK(&c, e && e->nev == 2, "evidence: the risky variables only (%zu)", e ? e->nev : 0);
	CHECK(&c, m.nin == DS_COUNT && m.in[r.file[DS_ENV]].lines == 4, "sections are inputs");
	doctor_report_free(&r);
	model_free(&m);
	doctor_facts_free(&f);

	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(&c, system(cmd) == 0, "cleanup");
	return check_done(&c, "doctor_node");
}
