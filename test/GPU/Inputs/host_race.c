/* Launches a kernel that is given a buffer, through the stand-in driver
 * (fake_libcuda.c), then writes the buffer on the host: at once with
 * `touch` (the stand-in stops the program), after a wait with `wait`.
 * With `device`, writes a block of device memory (cuMemAlloc), which the
 * host may never touch (the stand-in stops the program). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*Init)(unsigned);
typedef int (*Alloc)(unsigned long long *, size_t, unsigned);
typedef int (*Load)(void **, const void *);
typedef int (*Get)(void **, void *, const char *);
typedef int (*Launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **);
typedef int (*Sync)(void *);

int main(int argc, char **argv) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW);
  if (!driver || argc != 2)
    return 2;
  ((Init)dlsym(driver, "cuInit"))(0);
  unsigned long long buffer = 0;
  if (strcmp(argv[1], "device") == 0) {
    typedef int (*DeviceAlloc)(unsigned long long *, size_t);
    ((DeviceAlloc)dlsym(driver, "cuMemAlloc_v2"))(&buffer, 64);
    memset((void *)(size_t)buffer, 1, 64);
    printf("touched device memory\n");
    return 0;
  }
  ((Alloc)dlsym(driver, "cuMemAllocManaged"))(&buffer, 64, 1);
  /* A fatbin with no cubin: the stand-in cannot count the kernel's
   * parameters, and takes it to use every buffer. */
  unsigned char fatbin[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
  void *module = NULL, *kernel = NULL;
  ((Load)dlsym(driver, "cuModuleLoadData"))(&module, fatbin);
  ((Get)dlsym(driver, "cuModuleGetFunction"))(&kernel, module, "k");
  void *param = &buffer;
  ((Launch)dlsym(driver, "cuLaunchKernel"))(kernel, 1, 1, 1, 1, 1, 1, 0, NULL,
                                            &param, NULL);
  if (strcmp(argv[1], "wait") == 0)
    ((Sync)dlsym(driver, "cuStreamSynchronize"))(NULL);
  memset((void *)(size_t)buffer, 1, 64);
  printf("touched after the %s\n", argv[1]);
  fflush(stdout); /* before the stand-in's report at exit */
  return 0;
}
