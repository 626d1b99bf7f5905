/* The libraries part of the report: the NCCL the job will load, the CUDA
 * driver it meets, the net plugin NCCL will open. */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t write_copy(doctor_report *r, const ncclcopy *c, bool first)
{
	strbuf b = { 0 };
	sb_printf(&b, "%s %s", first ? "NCCL:" : "also found:", c->lib.path);
	if (strcmp(c->lib.real, c->lib.path) != 0)
		sb_printf(&b, " -> %s", c->lib.real);
	sb_printf(&b, ", through %s", loader_where_name(c->lib.where));
	/* the cache file, say; a directory is already in the path */
	if (c->lib.via[0] && strncmp(c->lib.path, c->lib.via, strlen(c->lib.via)) != 0)
		sb_printf(&b, " (%s)", c->lib.via);
	if (!first)
		sb_printf(&b, ": NCCL %s; the job loads the one above", c->version[0] ? c->version : "of unknown version");
	size_t l = diag_line(r, DS_LIBS, "%s", b.p);
	sb_free(&b);
	if (!first)
		return l;
	if (c->version[0])
		diag_line(r, DS_LIBS, "  version %s, from %s%s%s", c->version, versions_from_name_of(c->from),
			  c->cuda[0] ? "; built for CUDA " : "", c->cuda);
	else
		diag_line(r, DS_LIBS, "  version unknown: no answer from ncclGetVersion(), no version string, file name "
				      "or wheel metadata");
	if (c->wheel[0])
		diag_line(r, DS_LIBS, "  installed by the wheel %s", c->wheel);
	if (c->err[0] && c->from != VF_CALL)
		diag_line(r, DS_LIBS, "  not asked: %s", c->err);
	return l;
}

static size_t write_driver(doctor_report *r, const versions *v)
{
	char cv[16];
	versions_cuda_str(v->driver, cv, sizeof cv);
	size_t l;
	if (v->driver && v->driver_called)
		l = diag_line(r, DS_LIBS, "CUDA driver%s%s supports CUDA %s (cuDriverGetVersion() of %s)", v->kmod[0] ? " " : "",
			      v->kmod, cv, v->libcuda);
	else if (v->driver)
		l = diag_line(r, DS_LIBS, "CUDA driver %s supports CUDA %s%s (/proc/driver/nvidia/version, by NVIDIA's table of "
					  "minimum drivers)",
			      v->kmod, cv, v->driver_past_table ? " or newer" : "");
	else if (v->kmod[0])
		l = diag_line(r, DS_LIBS, "CUDA driver %s: older than CUDA 10.0 (/proc/driver/nvidia/version)", v->kmod);
	else
		l = diag_line(r, DS_LIBS, "CUDA driver: %s", v->libcuda ? "version unknown (no /proc/driver/nvidia/version)"
								: "none found (no /proc/driver/nvidia/version, no libcuda.so.1)");
	if (v->libcuda && !v->driver_called)
		diag_line(r, DS_LIBS, "  %s: not asked: %s", v->libcuda, v->libcuda_err[0] ? v->libcuda_err : "probing is off");
	return l;
}

/* cudaDriverVersion older than the CUDA NCCL was built with: analyze's check, over the files. */
static void check_driver(model *m, const doctor_facts *f, const doctor_report *r, size_t nccl_line, size_t drv_line)
{
	const versions *v = &f->vers;
	if (!v->nnccl || !v->nccl[0].cuda_build || !v->driver || v->driver >= v->nccl[0].cuda_build)
		return;
	int build = v->nccl[0].cuda_build;
	if (v->driver_past_table)
		return; /* a lower bound: the driver may well be new enough */
	bool major = v->driver / 1000 < build / 1000;
	strbuf msg = { 0 };
	sb_printf(&msg, "the CUDA driver supports CUDA %d.%d but NCCL was built for CUDA %d.%d", v->driver / 1000,
		  (v->driver % 1000) / 10, build / 1000, (build % 1000) / 10);
	if (!major)
		sb_adds(&msg, " (minor-version compatibility covers most, not all, of the CUDA API)");
	finding *fd = diag_finding(m, "cuda-driver-too-old", "driver", major ? SEV_ERROR : SEV_WARNING, msg.p,
				   "upgrade the NVIDIA driver, or use a PyTorch/NCCL build for the CUDA version that "
				   "`nvidia-smi` reports");
	diag_cite(fd, r, DS_LIBS, drv_line);
	diag_cite(fd, r, DS_LIBS, nccl_line);
	sb_free(&msg);
}

static void write_plugin(model *m, const doctor_facts *f, doctor_report *r)
{
	const versions *v = &f->vers;
	const char *set = node_env(&f->node, "NCCL_NET_PLUGIN");
	if (!v->plugin_want[0]) {
		diag_line(r, DS_LIBS, "net plugin: none (NCCL_NET_PLUGIN=%s): NCCL uses its internal IB and Socket transports",
			  set ? set : "none");
		return;
	}
	if (!v->plugin) {
		size_t l = diag_line(r, DS_LIBS, "net plugin: %s not found: NCCL uses its internal IB and Socket transports",
				     v->plugin_want);
		if (set) {
			strbuf msg = { 0 };
			sb_printf(&msg, "NCCL_NET_PLUGIN=%s names a plugin this node does not have: NCCL falls back to its "
					"internal transports",
				  set);
			finding *fd = diag_finding(m, "net-plugin-error", "missing", SEV_WARNING, msg.p,
						   "install the plugin (e.g. aws-ofi-nccl for EFA) where the loader finds it "
						   "(LD_LIBRARY_PATH, ldconfig), or unset NCCL_NET_PLUGIN");
			diag_cite(fd, r, DS_LIBS, l);
			sb_free(&msg);
		}
		return;
	}
	size_t l;
	if (v->plugin_name[0] || v->plugin_abi)
		l = diag_line(r, DS_LIBS, "net plugin: %s (\"%s\", ncclNetPlugin_v%d), through %s", v->plugin, v->plugin_name,
			      v->plugin_abi, loader_where_name(v->plugin_where));
	else
		l = diag_line(r, DS_LIBS, "net plugin: %s, through %s%s%s", v->plugin, loader_where_name(v->plugin_where),
			      v->plugin_err[0] ? "; not loaded: " : "", v->plugin_err);
	if (v->plugin_err[0]) {
		strbuf msg = { 0 };
		sb_printf(&msg, "the net plugin %s is there but %s: NCCL falls back to its internal transports", v->plugin,
			  v->plugin_err);
		finding *fd = diag_finding(m, "net-plugin-error", "load", SEV_WARNING, msg.p,
					   "install the libraries the plugin needs (ldd on it names the missing ones; EFA: "
					   "libfabric), use a plugin built for this NCCL, or remove it and unset "
					   "NCCL_NET_PLUGIN");
		diag_cite(fd, r, DS_LIBS, l);
		sb_free(&msg);
	}
}

void diag_libs(model *m, const doctor_facts *f, doctor_report *r)
{
	const versions *v = &f->vers;
	size_t nccl_line;
	if (!v->nnccl)
		nccl_line = diag_line(r, DS_LIBS,
				      v->nccl_option_missing
					      ? "NCCL: none found at --nccl-lib"
					      : "NCCL: none found (searched LD_PRELOAD, LD_LIBRARY_PATH, the nvidia/nccl/lib of "
						"Python environments, the conda environment, the ldconfig cache and the "
						"default directories)");
	else
		nccl_line = write_copy(r, &v->nccl[0], true);
	for (size_t i = 1; i < v->nnccl; i++)
		write_copy(r, &v->nccl[i], false);
	size_t drv_line = write_driver(r, v);
	check_driver(m, f, r, nccl_line, drv_line);
	write_plugin(m, f, r);
}
