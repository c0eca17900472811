/* SPDX-License-Identifier: ISC */
/* fabtuned's entry point, kept in the library so the tests can drive it. */
#pragma once

int fabtuned_main(int argc, char **argv);
