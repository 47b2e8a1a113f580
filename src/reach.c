// SPDX-License-Identifier: GPL-2.0
/*
 * Can the readers a policy grants reach the pin directory? A pin readable
 * by group G is no use if G cannot search /sys/fs/bpf, which systemd
 * mounts with mode 0700. This evaluates each directory's access ACL (or
 * mode) as the kernel would for each reader, and either fixes bpffs
 * directories with x entries (grant-traverse) or says how to.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <acl/libacl.h>
#include "diag.h"
#include "dir_trust.h"
#include "fault.h"
#include "reach.h"
#include "traverse.h"

unsigned long reach_fs_magic = BPF_FS_MAGIC;

struct readers {
	struct reader *r;
	size_t n;
};

static int add_reader(struct readers *rs, enum reader_kind kind,
		      unsigned int id, const struct policy_entry *e)
{
	struct reader *r;

	/* root reads anything; the root group is an ordinary group here */
	if (kind == READER_USER && id == 0)
		return 0;
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].kind == kind && (kind == READER_OTHER || rs->r[i].id == id))
			return 0;
	r = realloc(rs->r, (rs->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	rs->r = r;
	r[rs->n++] = (struct reader){ kind, id, e, false };
	return 0;
}

static int collect(const struct policy_entry *const *entries, size_t n,
		   struct readers *rs)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		const struct policy_entry *e = entries[i];

		if (e->mode & 0400)
			ret = add_reader(rs, READER_USER, e->uid, e);
		if (!ret && (e->mode & 0040))
			ret = add_reader(rs, READER_GROUP, e->gid, e);
		if (!ret && (e->mode & 0004))
			ret = add_reader(rs, READER_OTHER, 0, e);
		for (size_t g = 0; g < e->nr_grants && !ret; g++)
			if (e->grants[g].read)
				ret = add_reader(rs, e->grants[g].is_group ?
						 READER_GROUP : READER_USER,
						 e->grants[g].id, e);
	}
	return ret;
}

int reach_readers_of(const struct policy_entry *const *entries, size_t n,
		     struct reader **out, size_t *nout)
{
	struct readers rs = { 0 };
	int ret = collect(entries, n, &rs);

	if (ret) {
		free(rs.r);
		return ret;
	}
	*out = rs.r;
	*nout = rs.n;
	return 0;
}

static bool has_perm(acl_entry_t ent, acl_perm_t perm)
{
	acl_permset_t ps;

	return !acl_get_permset(ent, &ps) && acl_get_perm(ps, perm) == 1;
}

static bool in_groups(gid_t gid, const gid_t *gids, int n)
{
	for (int i = 0; i < n; i++)
		if (gids[i] == gid)
			return true;
	return false;
}

/* The POSIX.1e access check (acls(5)), for search permission. */
bool reach_may_search(acl_t acl, const struct stat *st, const struct reader *r)
{
	bool have_mask = false, mask_x = true, matched = false, allowed = false;
	bool owner_x = st->st_mode & S_IXUSR, other_x = st->st_mode & S_IXOTH;
	gid_t gids[NGROUPS_MAX + 1];
	int ngids = 0;
	acl_entry_t ent;
	acl_tag_t tag;
	int id;

	if (r->kind == READER_USER) {
		struct passwd *pw = getpwuid(r->id);

		ngids = NGROUPS_MAX + 1;
		if (!pw || getgrouplist(pw->pw_name, pw->pw_gid, gids, &ngids) < 0)
			ngids = 0;
	} else if (r->kind == READER_GROUP) {
		gids[0] = r->id;
		ngids = 1;
	}
	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &ent) == 1; id = ACL_NEXT_ENTRY) {
		if (acl_get_tag_type(ent, &tag))
			continue;
		if (tag == ACL_MASK) {
			have_mask = true;
			mask_x = has_perm(ent, ACL_EXECUTE);
		}
		/* The ACL's, not ST's: it may be one that grant-traverse
		 * changed in memory, or would.
		 */
		if (tag == ACL_USER_OBJ)
			owner_x = has_perm(ent, ACL_EXECUTE);
		if (tag == ACL_OTHER)
			other_x = has_perm(ent, ACL_EXECUTE);
	}
	if (r->kind == READER_USER && r->id == st->st_uid)
		return owner_x;
	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &ent) == 1; id = ACL_NEXT_ENTRY) {
		unsigned int *q;

		if (acl_get_tag_type(ent, &tag))
			continue;
		if (tag == ACL_USER && r->kind == READER_USER) {
			q = acl_get_qualifier(ent);
			if (q && *q == r->id) {
				acl_free(q);
				return has_perm(ent, ACL_EXECUTE) && mask_x;
			}
			acl_free(q);
		} else if (tag == ACL_GROUP_OBJ && r->kind != READER_OTHER &&
			   in_groups(st->st_gid, gids, ngids)) {
			matched = true;
			allowed |= has_perm(ent, ACL_EXECUTE) && (mask_x || !have_mask);
		} else if (tag == ACL_GROUP && r->kind != READER_OTHER) {
			q = acl_get_qualifier(ent);
			if (q && in_groups(*q, gids, ngids)) {
				matched = true;
				allowed |= has_perm(ent, ACL_EXECUTE) && mask_x;
			}
			acl_free(q);
		}
	}
	if (matched)
		return allowed;
	return other_x;
}

static const char *reader_name(const struct reader *r, char *buf, size_t size)
{
	struct passwd *pw;
	struct group *gr;

	switch (r->kind) {
	case READER_USER:
		pw = getpwuid(r->id);
		snprintf(buf, size, "user '%s'", pw ? pw->pw_name : "?");
		break;
	case READER_GROUP:
		gr = getgrgid(r->id);
		snprintf(buf, size, "group '%s'", gr ? gr->gr_name : "?");
		break;
	default:
		snprintf(buf, size, "everyone (mode o+r)");
	}
	return buf;
}

/* The ACL entry that lets R search: "g:NAME:x", "u:NAME:x", "o::x". */
static void reader_entry(const struct reader *r, char *buf, size_t size)
{
	struct passwd *pw;
	struct group *gr;

	if (r->kind == READER_USER && (pw = getpwuid(r->id)))
		snprintf(buf, size, "u:%s:x", pw->pw_name);
	else if (r->kind == READER_GROUP && (gr = getgrgid(r->id)))
		snprintf(buf, size, "g:%s:x", gr->gr_name);
	else if (r->kind == READER_OTHER)
		snprintf(buf, size, "o::x");
	else
		snprintf(buf, size, "%c:%u:x", r->kind == READER_USER ? 'u' : 'g', r->id);
}

/* The command that lets R search DIR: setfacl, or chmod. */
static void reader_fix(const struct reader *r, const char *dir, char *buf,
		       size_t size)
{
	char ent[300];

	reader_entry(r, ent, sizeof(ent));
	if (r->kind == READER_OTHER)
		snprintf(buf, size, "chmod o+x %s", dir);
	else
		snprintf(buf, size, "setfacl -m %s %s", ent, dir);
}

/* Report one reader stopped at one directory: apply's error and hint. */
static void print_block(const struct reach_block *b, void *arg)
{
	err_at(&b->entry->loc, "'%s' grants %s read access, but %s (mode %04o) does not let %s through",
	       b->entry->name, b->who, b->dir, b->mode, b->other ? "them" : "it");
	if (b->on_bpffs && b->replaceable)
		hint("%s may be replaced by a user other than root, so grant-traverse does not change it; make it and its parent root's alone, or '%s' would let it through",
		     b->dir, b->fix);
	else if (b->on_bpffs && b->needs_others)
		hint("let it through with '%s', or put 'set grant-traverse others' in the policy (either lets %s)",
		     b->fix, b->other ? "every user search it" :
		     "every group-class entry with x through its ACL mask");
	else if (b->on_bpffs)
		hint("let it through with '%s', or put 'set grant-traverse yes' in the policy",
		     b->fix);
	else
		hint("%s is not on bpffs and fsiter-pin does not change it; '%s' would let it through",
		     b->dir, b->fix);
}

struct reach_ctx {
	enum grant_traverse gt;
	bool dry_run;
	struct traverse rec;	/* what grant-traverse added */
	reach_report_fn report;
	void *arg;
	bool blocked;
};

/* Say what grant-traverse gave R on DIR (DID: TRAVERSE_*), or would. */
static void say_given(const struct reader *r, const char *dir, unsigned int did,
		      bool dry_run)
{
	char who[300], ent[300];

	if (r->kind == READER_OTHER)
		snprintf(who, sizeof(who), "every user");
	else
		reader_name(r, who, sizeof(who));
	reader_entry(r, ent, sizeof(ent));
	info("%s search permission on %s to %s (grant-traverse: %s%s%s)",
	     dry_run ? "would give" : "gave", dir, who,
	     did & TRAVERSE_ENTRY ? ent : "",
	     !(did & TRAVERSE_MASK) ? "" :
	     did & TRAVERSE_ENTRY ? ", and x on the ACL mask" : "x on the ACL mask",
	     did & TRAVERSE_MASK_MADE ? ", with a new ACL mask" : "");
}

/* Append R's name to the list in BUF. */
static void list_reader(char *buf, size_t size, const struct reader *r)
{
	size_t len = strlen(buf);
	char who[300];

	if (r->kind == READER_OTHER)
		snprintf(who, sizeof(who), "every user");
	else
		reader_name(r, who, sizeof(who));
	snprintf(buf + len, size - len, "%s%s", len ? ", " : "", who);
}

static int check_dir(struct reach_ctx *c, const struct readers *rs,
		     const char *dir)
{
	size_t recs = c->rec.n, ngiven = 0;
	unsigned int *given = NULL;	/* each reader's TRAVERSE_* */
	struct statfs sf;
	struct stat st;
	char who[300], fix[PATH_MAX + 320];
	char fd_path[32];
	struct dir_trust trust;
	bool on_bpffs, refused = false;
	acl_t acl;
	int fd, ret = 0;

	/* Everything through one fd: a directory swapped for a link while
	 * apply is at it is not followed (the ACL is read and set on the
	 * inode that was checked).
	 */
	fd = dir_open_trusted(dir, &st, &trust);
	if (fd == -ENOENT)
		return 1;
	if (fd < 0) {
		err("%s: cannot open it as a directory (a symbolic link is not followed): %s",
		    dir, strerror(-fd));
		return fd;
	}
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	if (fstatfs(fd, &sf)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	on_bpffs = (unsigned long)sf.f_type == reach_fs_magic;
	acl = acl_get_file(fd_path, ACL_TYPE_ACCESS);
	if (!acl && errno == EOPNOTSUPP)
		acl = acl_from_mode(st.st_mode);
	if (!acl) {
		ret = -errno;
		close(fd);
		return ret;
	}
	given = calloc(rs->n + 1, sizeof(*given));
	if (!given) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct reader *r = &rs->r[i];
		struct reach_block b;

		if (reach_may_search(acl, &st, r))
			continue;
		reader_name(r, who, sizeof(who));
		reader_fix(r, dir, fix, sizeof(fix));
		if (c->gt && on_bpffs && trust.who != DIR_SAFE && !refused) {
			char by[300];

			warn("%s: %s %s so grant-traverse gives no search permission there (a user could put another file in its place)",
			     dir, trust.who == DIR_OWNER ? "it may be changed by" :
			     "its parent may be changed by", dir_trust_who(&trust, by, sizeof(by)));
			refused = true;
		}
		if (c->gt && on_bpffs && trust.who == DIR_SAFE) {
			ret = traverse_grant(&acl, dir, r, c->gt == GRANT_TRAVERSE_OTHERS,
					     c->dry_run ? NULL : &c->rec, &given[i]);
			if (ret < 0)
				break;
			if (!ret) {
				ngiven += !!given[i];
				continue;
			}
			ret = 0;	/* it needs 'others' */
		}
		b = (struct reach_block){ r->first, who, dir, st.st_mode & 07777,
					  fix, on_bpffs, r->kind == READER_OTHER,
					  traverse_needs_others(acl, r),
					  trust.who != DIR_SAFE };
		c->report(&b, c->arg);
		c->blocked = true;
		rs->r[i].stopped = true;
	}
	if (!ret && ngiven && !c->dry_run) {
		char list[1024] = "";

		for (size_t i = 0; i < rs->n; i++)
			if (given[i])
				list_reader(list, sizeof(list), &rs->r[i]);
		/* The record first: a run killed before the ACL is set
		 * leaves a record of entries that are not there (taking
		 * back skips them), never entries that no record knows.
		 */
		ret = traverse_save(&c->rec);
		if (ret) {
			err("%s: search permission was not given to %s, as what grant-traverse adds could not be recorded",
			    dir, list);
			traverse_truncate(&c->rec, recs);
			goto out;
		}
		ret = fault_at("traverse");
		if (!ret && acl_set_file(fd_path, ACL_TYPE_ACCESS, acl))
			ret = -errno;
		if (ret)
			err("%s: cannot set its ACL: %s; search permission was not given to %s",
			    dir, strerror(-ret), list);
	}
	if (ret) {
		/* Nothing was set: nothing of it is apply's to take back. */
		traverse_truncate(&c->rec, recs);
		if (!c->dry_run)
			traverse_save(&c->rec);
		goto out;
	}
	for (size_t i = 0; i < rs->n; i++) {
		if (!given[i])
			continue;
		say_given(&rs->r[i], dir, given[i], c->dry_run);
		c->rec.given += !c->dry_run;
	}
out:
	free(given);
	acl_free(acl);
	close(fd);
	return ret;
}

/* Check every directory from / down to PIN_DIR; missing ones, apply
 * creates with mode 0755.
 */
static int check_dirs(struct reach_ctx *c, const struct readers *rs,
		      const char *pin_dir)
{
	size_t len = strlen(pin_dir);
	char dir[PATH_MAX];
	int ret;

	ret = check_dir(c, rs, "/");
	for (size_t end = 1; !ret && end <= len; end++) {
		if (end < len && pin_dir[end] != '/')
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)end, pin_dir);
		ret = check_dir(c, rs, dir);
	}
	return ret == 1 ? 0 : ret;
}

/* Is a reader that E grants stopped, by the check that filled RS? */
static int entry_stopped(const struct readers *rs, const struct policy_entry *e)
{
	struct readers one = { 0 };
	int ret;

	ret = collect(&e, 1, &one);
	for (size_t i = 0; !ret && i < one.n; i++)
		for (size_t j = 0; !ret && j < rs->n; j++)
			ret = rs->r[j].stopped && rs->r[j].kind == one.r[i].kind &&
			      rs->r[j].id == one.r[i].id;
	free(one.r);
	return ret;
}

int reach_check(const struct policy_entry *const *entries, size_t n,
		enum grant_traverse gt, const char *pin_dir, bool dry_run,
		reach_report_fn report, void *arg, struct reach_changes *changes,
		bool *stopped)
{
	struct reach_ctx c = { gt, dry_run, { .lock_fd = -1 }, report ?: print_block,
			       arg, false };
	struct readers rs = { 0 };
	bool bad_record = false;
	int ret, r;

	ret = collect(entries, n, &rs);
	/* What an earlier apply added and no reader needs now goes first,
	 * whatever this policy's grant-traverse says.
	 */
	if (!ret && !report)
		ret = traverse_load(&c.rec, pin_dir, !dry_run);
	/* Fail closed, but alone: the entries whose readers it would have
	 * let through fail (unreachable), every other change goes on.
	 */
	if (ret == -EBADMSG) {
		bad_record = true;
		c.gt = GRANT_TRAVERSE_NO;
		ret = 0;
	}
	if (!ret && !report && !bad_record)
		ret = traverse_set_readers(&c.rec, rs.r, rs.n);
	if (!ret && !report && !bad_record)
		ret = traverse_take_back(&c.rec, dry_run);
	if (!ret && rs.n)
		ret = check_dirs(&c, &rs, pin_dir);
	for (size_t i = 0; !ret && stopped && i < n; i++) {
		r = c.blocked ? entry_stopped(&rs, entries[i]) : 0;
		if (r < 0)
			ret = r;
		stopped[i] = r > 0;
	}
	if (!ret && c.blocked)
		ret = -EACCES;
	/* Recorded even after a failure: what was added stays known. */
	r = !report && !dry_run && !bad_record ? traverse_save(&c.rec) : 0;
	if (changes)
		*changes = (struct reach_changes){ c.rec.given, c.rec.taken, bad_record };
	traverse_free(&c.rec);
	free(rs.r);
	return ret ?: r;
}

/* Collects whether anyone was stopped, for reach_readers(). */
static void note_block(const struct reach_block *b, void *arg)
{
	*(bool *)arg = true;
}

/*
 * list shows the readers of every pin of one directory: remember who can
 * reach it, rather than read the ACL of every directory above it again
 * for each reader of each pin. One process lists one directory, which it
 * does not change.
 */
#define REACH_MEMO	64

static struct {
	char dir[PATH_MAX];
	struct { enum reader_kind kind; unsigned int id; bool stopped; } r[REACH_MEMO];
	size_t n;
} memo;

/* Can R reach PIN_DIR? Not if a directory above the pins stops it. */
static bool reader_stopped(const struct reader *r, const char *pin_dir)
{
	struct readers one = { (struct reader *)r, 1 };
	bool stopped = false;
	struct reach_ctx c = { .dry_run = true, .report = note_block, .arg = &stopped };

	if (strcmp(memo.dir, pin_dir)) {
		snprintf(memo.dir, sizeof(memo.dir), "%s", pin_dir);
		memo.n = 0;
	}
	for (size_t i = 0; i < memo.n; i++)
		if (memo.r[i].kind == r->kind && memo.r[i].id == r->id)
			return memo.r[i].stopped;
	if (check_dirs(&c, &one, pin_dir))
		return stopped;		/* unreadable: not remembered */
	if (memo.n < REACH_MEMO) {
		memo.r[memo.n].kind = r->kind;
		memo.r[memo.n].id = r->id;
		memo.r[memo.n++].stopped = stopped;
	}
	return stopped;
}

/* Is WHO ("u:alice") already in the list OUT, marked "!" or not? */
static bool listed(const char *out, const char *who)
{
	size_t n = strlen(who);

	for (const char *p = out; *p;) {
		size_t len = strcspn(p, ",");
		const char *q = *p == '!' ? p + 1 : p;

		if ((size_t)(p + len - q) == n && !strncmp(q, who, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* The list of readers, as long as it takes (a pin may name hundreds). */
struct reader_text {
	char *s;	/* "" until the first reader */
	size_t len, cap;
};

/*
 * Adds R's short name ("u:fsa", "g:fsreaders", "o") to the list OUT,
 * marked "!" if it cannot reach PIN_DIR; once: the owner or the owning group may also be
 * named by an ACL entry of its own. 0 or -ENOMEM.
 */
static int add_reader_text(const struct reader *r, const char *pin_dir,
			   struct reader_text *out)
{
	bool stopped = false;
	char who[300];
	struct passwd *pw;
	struct group *gr;
	size_t need;
	char *s;

	if (r->kind == READER_USER && (pw = getpwuid(r->id)))
		snprintf(who, sizeof(who), "u:%s", pw->pw_name);
	else if (r->kind == READER_GROUP && (gr = getgrgid(r->id)))
		snprintf(who, sizeof(who), "g:%s", gr->gr_name);
	else if (r->kind == READER_OTHER)
		snprintf(who, sizeof(who), "o");
	else
		snprintf(who, sizeof(who), "%c:%u", r->kind == READER_USER ? 'u' : 'g', r->id);
	if (listed(out->s, who))
		return 0;
	if (r->kind != READER_USER || r->id != 0)
		stopped = reader_stopped(r, pin_dir);
	need = out->len + strlen(who) + 3;	/* ",!" and the NUL */
	if (need > out->cap) {
		s = realloc(out->s, need > 2 * out->cap ? need : 2 * out->cap);
		if (!s)
			return -ENOMEM;
		out->s = s;
		out->cap = need > 2 * out->cap ? need : 2 * out->cap;
	}
	out->len += sprintf(out->s + out->len, "%s%s%s", out->len ? "," : "",
			    stopped ? "!" : "", who);
	return 0;
}

int reach_readers(const char *pin_path, const char *pin_dir, char **list)
{
	bool mask_r = true, have_mask = false;
	static const struct policy_entry none;
	struct reader_text out = { NULL, 0, 0 };
	struct stat st;
	acl_entry_t ent;
	acl_tag_t tag;
	acl_t acl;
	int id, ret = 0;

	*list = NULL;
	if (stat(pin_path, &st))
		return -errno;
	acl = acl_get_file(pin_path, ACL_TYPE_ACCESS);
	if (!acl && errno == EOPNOTSUPP)
		acl = acl_from_mode(st.st_mode);
	if (!acl)
		return -errno;
	out.s = strdup("");
	if (!out.s) {
		acl_free(acl);
		return -ENOMEM;
	}
	out.cap = 1;
	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &ent) == 1; id = ACL_NEXT_ENTRY)
		if (!acl_get_tag_type(ent, &tag) && tag == ACL_MASK) {
			have_mask = true;
			mask_r = has_perm(ent, ACL_READ);
		}
	for (id = ACL_FIRST_ENTRY; !ret && acl_get_entry(acl, id, &ent) == 1;
	     id = ACL_NEXT_ENTRY) {
		struct reader r = { READER_OTHER, 0, &none };
		unsigned int *q;

		if (acl_get_tag_type(ent, &tag) || !has_perm(ent, ACL_READ))
			continue;
		switch (tag) {
		case ACL_USER_OBJ:
			r = (struct reader){ READER_USER, st.st_uid, &none };
			break;
		case ACL_GROUP_OBJ:
			if (have_mask && !mask_r)
				continue;
			r = (struct reader){ READER_GROUP, st.st_gid, &none };
			break;
		case ACL_USER:
		case ACL_GROUP:
			if (!mask_r)
				continue;
			q = acl_get_qualifier(ent);
			if (!q)
				continue;
			r = (struct reader){ tag == ACL_USER ? READER_USER : READER_GROUP,
					     *q, &none };
			acl_free(q);
			break;
		case ACL_OTHER:
			break;
		default:
			continue;
		}
		ret = add_reader_text(&r, pin_dir, &out);
	}
	acl_free(acl);
	if (!ret && !out.len) {
		free(out.s);
		out.s = strdup("-");
		ret = out.s ? 0 : -ENOMEM;
	}
	if (ret) {
		free(out.s);
		return ret;
	}
	*list = out.s;
	return 0;
}
