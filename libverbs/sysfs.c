// SPDX-License-Identifier: MIT
/*
 * sysfs.c - the sysfs helpers of libibverbs (IBVERBS_1.0, PRIVATE_34).
 *
 * A kernel RDMA device shows its attributes in sysfs; programs read them
 * through ibv_read_sysfs_file() (ibv_devinfo: board_id; librdmacm: ABI
 * versions). The simulated devices have no kernel side, so the files under
 * their ibdev_path (/sys/class/infiniband/rnicN) and dev_path
 * (/sys/class/infiniband_verbs/uverbsN) are answered from the device
 * (device.c: rv_device_sysfs); every other path is read from the file
 * system, as rdma-core does.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rnic_verbs.h"
#include "rv_abi.h"

#define RV_SYSFS_PATH_MAX	256	/* IBV_SYSFS_PATH_MAX */

static char rv_sysfs_path[RV_SYSFS_PATH_MAX];
static pthread_once_t rv_sysfs_once = PTHREAD_ONCE_INIT;

static void rv_sysfs_path_init(void)
{
	const char *env = NULL;
	size_t len;

	/* $SYSFS_PATH only for a caller that is not set-user-ID (as
	 * rdma-core), trailing slashes removed. */
	if (getuid() == geteuid())
		env = getenv("SYSFS_PATH");
	if (!env)
		env = "/sys";
	snprintf(rv_sysfs_path, sizeof(rv_sysfs_path), "%s", env);
	len = strlen(rv_sysfs_path);
	while (len > 0 && rv_sysfs_path[len - 1] == '/')
		rv_sysfs_path[--len] = '\0';
}

RV_EXPORT const char *ibv_get_sysfs_path(void)
{
	pthread_once(&rv_sysfs_once, rv_sysfs_path_init);
	return rv_sysfs_path;
}

/* The return convention of rdma-core: the length read (the trailing
 * newline removed, the text NUL-terminated), or -1 when the file cannot be
 * read or its text and a NUL do not fit @size. */
static int rv_sysfs_text(const char *text, size_t len, char *buf, size_t size)
{
	if (len && text[len - 1] == '\n')
		len--;
	if (len >= size) {
		errno = EOVERFLOW;
		return -1;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	return (int)len;
}

static int rv_read_file(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return (int)len;
	if (buf[len - 1] == '\n') {
		buf[--len] = '\0';
	} else if ((size_t)len < size) {
		buf[len] = '\0';
	} else {
		/* No room for the NUL: fail rather than hand out an
		 * unterminated string. */
		return -1;
	}
	return (int)len;
}

RV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
				  char *buf, size_t size)
{
	char val[RV_SYSFS_PATH_MAX];
	struct rv_device *d;
	const char *rest;
	char *path;
	int uverbs, ret;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	d = rv_device_by_path(path, &uverbs, &rest);
	if (!d) {
		ret = rv_read_file(path, buf, size);
		free(path);
		return ret;
	}
	ret = rv_device_sysfs(d, uverbs, rest, val, sizeof(val));
	free(path);
	if (ret) {
		errno = ret;
		return -1;
	}
	return rv_sysfs_text(val, strlen(val), buf, size);
}

/* A provider's sysfs device: its ibdev_path is read at the offset of
 * rdma-core 44 (rv_abi.h). No provider gets one from this library, which
 * drives only its own devices, but the helper works on any. */
RV_EXPORT int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
					struct verbs_sysfs_dev *sysfs_dev,
					const char *fnfmt, ...)
{
	const char *dir;
	va_list ap;
	char *file;
	int ret;

	if (!sysfs_dev) {
		errno = EINVAL;
		return -1;
	}
	dir = (const char *)sysfs_dev + RV_SYSFS_DEV_IBDEV_PATH_OFF;
	va_start(ap, fnfmt);
	ret = vasprintf(&file, fnfmt, ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	ret = ibv_read_sysfs_file(dir, file, buf, size);
	free(file);
	return ret;
}
