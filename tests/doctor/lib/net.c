/* A stand-in NCCL net plugin: only the name at the start of the
 * ncclNetPlugin_v8 struct, which is all doctor reads. */
struct net_v8 {
	const char *name;
	void *functions[24];
};

const struct net_v8 ncclNetPlugin_v8 = { NAME, { 0 } };
