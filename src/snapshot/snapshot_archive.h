/* SPDX-License-Identifier: ISC */
/* A snapshot's scratch tree written as one tarball, compressed as its name says. */
#pragma once

#include <stddef.h>

/* The names a tarball may end in, for messages and --help: ".tar, .tar.gz, ...". */
#define SNAPSHOT_ARCHIVE_SUFFIXES ".tar, .tar.gz, .tgz, .tar.xz or .tar.zst"

/* 0 when TARBALL's name says a compression this libarchive writes itself; -EINVAL for a
 * name with none of the suffixes, -ENOTSUP for a filter it lacks; WHY says which. */
int snapshot_archive_check_name(const char *tarball, char *why, size_t whylen);
/* Writes TREE's subdirectories TOPS (NULL-terminated) into TARBALL, their paths relative
 * to TREE, symlinks kept as symlinks. 0, or -errno with WHY set (and no TARBALL left). */
int snapshot_archive_write(const char *tree, const char *const *tops, const char *tarball,
                           char *why, size_t whylen);
