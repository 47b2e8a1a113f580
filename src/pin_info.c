// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "fsiter_uapi.h"
#include "pin_info.h"
#include "target_kind.h"
#include "view_table.h"

void bpf_tag_hex(const unsigned char tag[BPF_TAG_SIZE],
		 char out[BPF_TAG_SIZE * 2 + 1])
{
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		sprintf(out + 2 * i, "%02x", tag[i]);
}

/* A view's top=N, from its program's read-only data; 0 if not found. */
static __u32 read_top(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 ids[16], len = sizeof(info), key = 0, top = 0;
	unsigned char value[64];

	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	for (__u32 i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct bpf_map_info mi = {};
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &mi, &mlen) &&
		    !strcmp(mi.name, VIEW_PARAM_SECTION) &&
		    mi.value_size >= sizeof(top) && mi.value_size <= sizeof(value) &&
		    !bpf_map_lookup_elem(fd, &key, value))
			memcpy(&top, value, sizeof(top));
		close(fd);
	}
	return top;
}

static int read_link(int link_fd, struct pin_info *pi)
{
	struct fsiter_link_info info = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = sizeof(info);
	int prog_fd, ret;

	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return -errno;
	if (info.type != BPF_LINK_TYPE_ITER)
		return 0;
	pi->link_id = info.id;
	pi->prog_id = info.prog_id;
	pi->fs_type = info.iter.fs.type;
	pi->mnt_id = info.iter.fs.mnt_id;
	pi->ino = info.iter.fs.ino;
	pi->dev = info.iter.fs.dev;
	pi->gone = info.iter.fs.gone;
	pi->flags = info.iter.fs.flags;
	pi->magic = info.iter.fs.magic;
	prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	if (prog_fd < 0)
		return -errno;
	len = sizeof(pinfo);
	ret = bpf_obj_get_info_by_fd(prog_fd, &pinfo, &len) ? -errno : 0;
	if (!ret) {
		const struct view_desc *v = view_by_prog_name(pinfo.name);

		if (v && (v->flags & VIEW_TAKES_TOP))
			pi->top = read_top(prog_fd);
	}
	close(prog_fd);
	if (ret)
		return ret;
	/* Only our targets: iter/fs_inode, iter/fs_mnt and iter/fs_sb programs. */
	if (pinfo.type != BPF_PROG_TYPE_TRACING)
		return 0;
	memcpy(pi->prog_name, pinfo.name, sizeof(pi->prog_name));
	bpf_tag_hex(pinfo.tag, pi->tag);
	pi->is_link = true;
	return 0;
}

int pin_read(struct pin_dir *d, const char *name, struct pin_info *pi)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	memset(pi, 0, sizeof(*pi));
	snprintf(pi->name, sizeof(pi->name), "%s", name);
	if (fstatat(d->cur_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	pi->uid = st.st_uid;
	pi->gid = st.st_gid;
	pi->mode = st.st_mode;
	if (!S_ISREG(st.st_mode))
		return 0;
	ret = path_join(path, d->path, name);
	if (ret)
		return ret;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno == -EINVAL ? 0 : -errno;
	ret = read_link(fd, pi);
	close(fd);
	return ret;
}


const char *pin_info_foreign(const struct pin_info *pi)
{
	if (S_ISDIR(pi->mode))
		return "a directory";
	if (!S_ISREG(pi->mode))
		return "not a bpffs object";
	if (!pi->is_link)
		return "a BPF map, program or link that is no iterator of a file or mount";
	/* A revoked pin left behind (owner or mode could not be cut after its
	 * link was neutered) is still one of ours.
	 */
	if (!view_by_prog_name(pi->prog_name) && !target_kind_of_stub(pi->prog_name))
		return "an iterator link of a program that is not one of the views";
	return NULL;
}

const char *pin_foreign(struct pin_dir *d, const char *name)
{
	struct pin_info pi;

	if (pin_read(d, name, &pi))
		return "something that cannot be read as a pin";
	return pin_info_foreign(&pi);
}
