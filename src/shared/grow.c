/* SPDX-License-Identifier: ISC */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

int grow_array(void **array, size_t *cap, size_t need, size_t elem_size, size_t max)
{
    if (need <= *cap)
        return 0;
    if (need > max || elem_size == 0 || max > SIZE_MAX / elem_size)
        return need > max ? -EFBIG : -EINVAL;
    size_t room = *cap ? *cap : 8;
    while (room < need)
        room = room > max / 2 ? max : room * 2;
    if (room > max)
        room = max;
    void *p = realloc(*array, room * elem_size);
    if (!p)
        return -ENOMEM;
    *array = p;
    *cap = room;
    return 0;
}
