// SPDX-License-Identifier: MIT
// The allocator policy of a measuring process. glibc returns a freed block above its mmap
// threshold to the kernel, and the next block of that size comes back as fresh pages that the
// kernel zeroes on first touch. Its threshold moves with the sizes freed, so whether a repeated
// hierarchy build paid that zeroing (a tenth of a 10⁵-triangle build) depended on the block size:
// cdlab's node arrays did, FCL's smaller arrays mostly did not. Keeping freed memory in the
// process gives every method, cdlab's and the peers', the same steady state: it reuses its own
// pages after the first repetition, which is what a long-running application sees. Between
// experiment points the runner hands the freed pages back (cd_alloc_release_freed), so a point's
// peak memory is not raised by what earlier points left.
#include "cd_harness_cli.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

int cd_alloc_keep_freed(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    // 256 MiB: blocks below it (a 10⁶-triangle tree's nodes) come from the heap and stay there.
    int ok = mallopt(M_MMAP_THRESHOLD, 256 << 20);
    ok &= mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return ok ? 0 : -1;
#else
    return -1;
#endif
}

void cd_alloc_release_freed(void)
{
#ifdef __GLIBC__
    (void)malloc_trim(0);
#endif
}
