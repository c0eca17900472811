/* SPDX-License-Identifier: ISC */
/* Growing an array by doubling (like systemd's GREEDY_REALLOC): adding n elements one at
 * a time costs O(n) copies, not O(n^2), and every array has a stated upper bound. */
#pragma once

#include <stddef.h>

/* Makes room for at least need elements of elem_size bytes in *array, whose room is *cap
 * elements: doubles it (from at least 8), never past max. 0 when there is room; -EFBIG
 * when need > max; -ENOMEM. On failure *array and *cap are unchanged. */
int grow_array(void **array, size_t *cap, size_t need, size_t elem_size, size_t max);

#define GROW_ARRAY(array, cap, need, max) \
    grow_array((void **)&(array), &(cap), (need), sizeof(*(array)), (max))
