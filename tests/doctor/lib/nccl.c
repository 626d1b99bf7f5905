/* A stand-in libnccl.so.2 for doctor's tests: ncclGetVersion() reports
 * CODE, and the library holds NCCL's version string the way NCCL's own
 * does ("NCCL version X.Y.Z+cudaA.B"). BROKEN=1 crashes while loading,
 * BROKEN=2 never finishes loading, NOVERSION leaves ncclGetVersion out,
 * NOBANNER the version string.
 * cc -shared -fPIC -DCODE=22105 -DVERSION='"2.21.5"' -DCUDA='"12.4"' */
#include <signal.h>
#include <unistd.h>

#ifndef VERSION
#define VERSION "2.21.5"
#endif
#ifndef CUDA
#define CUDA "12.4"
#endif

#ifndef NOBANNER
__attribute__((used)) const char nccl_test_version_string[] = "NCCL version " VERSION "+cuda" CUDA;
#endif

#ifndef NOVERSION
int ncclGetVersion(int *version)
{
	*version = CODE;
	return 0;
}
#endif

#if defined(BROKEN) && BROKEN == 1
__attribute__((constructor)) static void crash(void)
{
	raise(SIGSEGV);
}
#elif defined(BROKEN) && BROKEN == 2
__attribute__((constructor)) static void hang(void)
{
	for (;;)
		pause();
}
#endif
