/* SPDX-License-Identifier: ISC */
/* fabtuned: the whole daemon lives in libfabtuned; this only hands over. */
#include "config.h"

#include "fabtuned.h"

int main(int argc, char **argv)
{
    return fabtuned_main(argc, argv);
}
