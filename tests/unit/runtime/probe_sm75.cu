/* An empty kernel that tests/meson.build compiles for compute capability
 * 7.5 alone, machine code and no PTX: the code a build for Turing only
 * holds, which no other GPU can run. */
__global__ void
probe_sm75_kernel ()
{
}

extern "C" const void *
probe_sm75 (void)
{
  return (const void *) probe_sm75_kernel;
}
