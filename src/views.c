// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "diag.h"
#include "fault.h"
#include "fsiter_uapi.h"
#include "pin_info.h"
#include "target_kind.h"
#include "views.h"
#include "view_objects.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "revoke_stub.skel.h"
#pragma GCC diagnostic pop

const char *const views_missing = NULL;

/* Each view's object, as its skeleton embeds it (bpf/CMakeLists.txt). */
static const struct view_object {
	const char *view;
	const char *obj_name;	/* the skeleton's, which names its maps */
	const void *(*elf_bytes)(size_t *size);
} view_objects[] = VIEW_OBJECTS;

static const struct view_object *object_of(const struct view_desc *desc)
{
	for (size_t i = 0; i < sizeof(view_objects) / sizeof(view_objects[0]); i++)
		if (!strcmp(view_objects[i].view, desc->name))
			return &view_objects[i];
	return NULL;
}

static int prog_info(struct bpf_program *prog, __u32 *id, char *tag)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -errno;
	*id = info.id;
	bpf_tag_hex(info.tag, tag);
	return 0;
}

/* V's top=N into the program's read-only data, before it is loaded. */
static int set_top(struct view_prog *v)
{
	struct bpf_map *map = bpf_object__find_map_by_name(v->obj, VIEW_PARAM_SECTION);
	unsigned char value[64];
	const void *data;
	size_t size = 0;

	if (!map)
		return -ENOENT;
	data = bpf_map__initial_value(map, &size);
	if (!data || size < sizeof(v->top) || size > sizeof(value))
		return -EINVAL;
	memcpy(value, data, size);
	memcpy(value, &v->top, sizeof(v->top));
	return bpf_map__set_initial_value(map, value, size);
}

/* Open and load the object of V's view, and find its programs. */
static int open_object(struct view_prog *v)
{
	const struct view_object *o = object_of(v->desc);
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	const void *bytes;
	size_t size;
	int ret;

	if (!o)
		return -ENOENT;
	opts.object_name = o->obj_name;
	bytes = o->elf_bytes(&size);
	v->obj = bpf_object__open_mem(bytes, size, &opts);
	if (!v->obj) {
		ret = -errno;
		return ret ?: -EINVAL;
	}
	v->prog = bpf_object__find_program_by_name(v->obj, v->desc->prog);
	if (!v->prog)
		return -ENOENT;
	if (v->desc->flags & VIEW_TAKES_TOP) {
		ret = set_top(v);
		if (ret)
			return ret;
	}
	return bpf_object__load(v->obj);
}

int view_load(struct view_prog *v, enum view_id id, __u32 top)
{
	int ret;

	if (v->obj)
		return 0;
	v->desc = &view_table[id];
	v->top = top;
	errno = 0;
	ret = fault_at("load");
	if (!ret)
		ret = open_object(v);
	if (ret) {
		err("view '%s': cannot load its program: %s (run with -v for the verifier's log)",
		    v->desc->name, strerror(-ret));
		view_unload(v);
		return ret;
	}
	ret = prog_info(v->prog, &v->prog_id, v->tag);
	if (ret) {
		err("view '%s': program info: %s", v->desc->name, strerror(-ret));
		view_unload(v);
		return ret;
	}
	if (v->top)
		info_v("view '%s' top=%u: loaded %s, program id %u tag %s", v->desc->name,
		       v->top, v->desc->prog, v->prog_id, v->tag);
	else
		info_v("view '%s': loaded %s, program id %u tag %s", v->desc->name,
		       v->desc->prog, v->prog_id, v->tag);
	return 0;
}

void view_unload(struct view_prog *v)
{
	bpf_object__close(v->obj);
	v->obj = NULL;
	v->prog = NULL;
}

int view_attach(const struct view_prog *v, __u32 link_flags, int target_fd,
		struct bpf_link **link)
{
	DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	struct fsiter_iter_link_info linfo = {};
	struct bpf_link *l;

	linfo.fs.type = target_kinds[v->desc->target].uapi_type;
	linfo.fs.fd = target_fd;
	linfo.fs.flags = link_flags;
	opts.link_info = (union bpf_iter_link_info *)&linfo;
	opts.link_info_len = sizeof(linfo);
	l = bpf_program__attach_iter(v->prog, &opts);
	if (!l)
		return -errno;
	*link = l;
	return 0;
}

/* The stubs, one object per target kind, each with only its program
 * loaded: a kernel without one target still neuters the links of others.
 */
static struct stub {
	struct bpf_object *obj;
	int fd;
	int err;	/* its load failed: said, not tried again */
} stubs[TARGET_KINDS];

static int stub_load(struct stub *s, const char *name)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct bpf_program *prog, *p;
	const void *bytes;
	size_t size;
	int ret;

	ret = fault_at("stub");
	if (ret)
		return ret;
	opts.object_name = "revoke_stub";
	bytes = revoke_stub__elf_bytes(&size);
	s->obj = bpf_object__open_mem(bytes, size, &opts);
	if (!s->obj) {
		ret = -errno;
		return ret ?: -EINVAL;
	}
	prog = bpf_object__find_program_by_name(s->obj, name);
	if (!prog)
		return -ENOENT;
	bpf_object__for_each_program(p, s->obj) {
		ret = bpf_program__set_autoload(p, p == prog);
		if (ret)
			return ret;
	}
	ret = bpf_object__load(s->obj);
	if (ret)
		return ret;
	s->fd = bpf_program__fd(prog);
	return s->fd < 0 ? -EBADF : 0;
}

int stub_prog_fd(enum view_target kind, int *prog_fd)
{
	struct stub *s = &stubs[kind];
	const char *name = target_kinds[kind].stub;
	int ret;

	if (s->err)
		return s->err;
	if (!s->obj) {
		errno = 0;
		ret = stub_load(s, name);
		if (ret) {
			err("stub '%s': cannot load it: %s (run with -v for the verifier's log)",
			    name, strerror(-ret));
			bpf_object__close(s->obj);
			s->obj = NULL;
			s->err = ret;
			return ret;
		}
		info_v("stub '%s': loaded, for the links that are revoked", name);
	}
	*prog_fd = s->fd;
	return 0;
}
