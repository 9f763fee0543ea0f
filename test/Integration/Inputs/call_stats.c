/* Calls the runtime's measurements that every library's header declares
 * (test/Integration/c-names.test). */
#include "libonly.h"

#include <stdio.h>

int main(void) {
  tad_rt_reset_peak();
  tad_rt_stats s = tad_rt_get_stats();
  printf("stats: %lld bytes live\n", (long long)s.current_bytes);
  return 0;
}
