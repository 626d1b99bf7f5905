/* A stand-in libcuda.so.1: cuDriverGetVersion() reports DRIVER
 * (1000 * major + 10 * minor), as the real one does without a GPU. */
int cuDriverGetVersion(int *v)
{
	*v = DRIVER;
	return 0;
}
