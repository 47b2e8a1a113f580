// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the policy parser and validator (src/policy*.c), on the
 * host. Each case parses text as a file, then checks the result and every
 * message printed. Users and groups used exist on any Debian system:
 * root (0), nobody (65534), and the groups root and nogroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "policy.h"

static int failures, checks;
static char *msgs;
static size_t msgs_len;

#define CHECK(cond, ...)						\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			failures++;					\
			printf("FAIL %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n  messages:\n%s", msgs ? msgs : "");	\
		}							\
	} while (0)

/* Messages from now on go to msgs, until release(). */
static void capture(void)
{
	free(msgs);
	msgs = NULL;
	diag_out = open_memstream(&msgs, &msgs_len);
}

static void release(void)
{
	fclose(diag_out);
	diag_out = NULL;
}

/* Parse TEXT as FILE into P (appending), validating if VALIDATE. */
static int run(struct policy *p, const char *file, const char *text,
	       int validate)
{
	int ret;

	capture();
	ret = policy_parse_buf(p, file, text, strlen(text));
	if (!ret && validate)
		ret = policy_validate(p);
	release();
	return ret;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* Messages hold no control byte but their newlines, and are UTF-8. */
static int clean(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; c && *c; ) {
		size_t n = utf8_len(c);

		if (!n || (*c < 0x20 && *c != '\n') || *c == 0x7f ||
		    (c[0] == 0xc2 && c[1] < 0xa0))
			return 0;
		c += n;
	}
	return 1;
}

/* One bad line: expect -EINVAL and exactly one message containing WANT. */
static void bad(const char *text, const char *want)
{
	struct policy p;
	int ret;

	policy_init(&p);
	ret = run(&p, "t.conf", text, 1);
	CHECK(ret == -EINVAL, "'%s': ret %d, want -EINVAL", text, ret);
	CHECK(msgs && strstr(msgs, want), "'%s': no message '%s'", text, want);
	CHECK(count_lines(msgs) == 1, "'%s': %d messages, want 1", text,
	      count_lines(msgs));
	CHECK(clean(msgs), "'%s': a raw control byte in the messages", text);
	policy_free(&p);
}

static void test_good(void)
{
	struct policy p;
	const struct policy_entry *e;
	int ret;

	policy_init(&p);
	ret = run(&p, "t.conf",
		  "# a comment\n"
		  "\n"
		  "set pin-dir /sys/fs/bpf/other\n"
		  "set grant-traverse yes\n"
		  "  inode  passwd  /etc/passwd 0440 root nogroup u:nobody:r,g:root:- -\n"
		  "cache c1 \"/srv/with space\"   # trailing comment is a field? no\n"
		  "mount\troot\t/\r\n"
		  "inode-raw raw /etc/passwd 0444 - - - expose-raw,nofail\n",
		  1);
	/* "# trailing..." after fields is not a comment: too many fields */
	CHECK(ret == -EINVAL && strstr(msgs, "t.conf:6: too many fields"),
	      "trailing text is refused, ret %d", ret);
	policy_free(&p);

	policy_init(&p);
	ret = run(&p, "t.conf",
		  "# a comment\n"
		  "\n"
		  "set pin-dir /sys/fs/bpf/other\n"
		  "set grant-traverse yes\n"
		  "  inode  passwd  /etc/passwd 0440 root nogroup u:nobody:r,g:root:- -\n"
		  "cache c1 \"/srv/with \\\"space\\\"\"\n"
		  "mount\troot\t/\r\n"
		  "inode-raw raw /etc/passwd 0444 - - - expose-raw,nofail\n"
		  "cache open /etc/group 0444 - - - expose-cache\n"
		  "cache hl /etc/hostname 0444 - - - hardlinks,nofail",
		  1);
	CHECK(ret == 0, "good policy: ret %d", ret);
	CHECK(msgs && !*msgs, "good policy: no messages");
	CHECK(p.nr_entries == 6, "6 entries, got %zu", p.nr_entries);
	e = policy_find(&p, "open");
	CHECK(e && e->options == POLICY_OPT_EXPOSE_CACHE, "expose-cache");
	e = policy_find(&p, "hl");
	CHECK(e && e->options == (POLICY_OPT_HARDLINKS | POLICY_OPT_NOFAIL), "hardlinks");
	CHECK(p.pin_dir && !strcmp(p.pin_dir, "/sys/fs/bpf/other"), "pin-dir");
	CHECK(p.grant_traverse == GRANT_TRAVERSE_YES, "grant-traverse yes");
	e = policy_find(&p, "passwd");
	CHECK(e && e->view->id == VIEW_INODE && e->mode == 0440 && e->uid == 0 &&
	      e->gid == 65534 && e->loc.line == 5, "passwd entry");
	CHECK(e && e->nr_grants == 2 && !e->grants[0].is_group &&
	      e->grants[0].id == 65534 && e->grants[0].read &&
	      e->grants[1].is_group && e->grants[1].id == 0 && !e->grants[1].read,
	      "passwd grants");
	e = policy_find(&p, "c1");
	CHECK(e && !strcmp(e->path, "/srv/with \"space\"") &&
	      e->mode == POLICY_DEFAULT_MODE && !e->owner && !e->acl,
	      "quoted path and defaults");
	e = policy_find(&p, "root");
	CHECK(e && e->view->id == VIEW_MOUNT && !strcmp(e->path, "/"), "CRLF line");
	e = policy_find(&p, "raw");
	CHECK(e && e->options == (POLICY_OPT_EXPOSE_RAW | POLICY_OPT_NOFAIL),
	      "options");
	policy_free(&p);
}

/* top=N: cache-top only, 1 to POLICY_TOP_MAX, a repeat only with the same N. */
static void test_top(void)
{
	struct policy p;
	const struct policy_entry *e;
	int ret;

	policy_init(&p);
	ret = run(&p, "t.conf",
		  "cache-top var-top /var 0440 root nogroup - top=50\n"
		  "cache-top var-top20 /var\n"
		  "cache-top var-top100 /var - - - - nofail,top=100,expose-cache\n"
		  "cache-top one /var - - - - top=1\n"
		  "cache-summary var-sum /var 0444\n",
		  1);
	CHECK(ret == 0, "top=N: ret %d", ret);
	CHECK(msgs && !*msgs, "top=N: no messages");
	e = policy_find(&p, "var-top");
	CHECK(e && e->view->id == VIEW_CACHE_TOP && e->top == 50 &&
	      policy_entry_top(e) == 50 && !e->options, "top=50");
	e = policy_find(&p, "var-top20");
	CHECK(e && e->top == 0 && policy_entry_top(e) == POLICY_TOP_DEFAULT,
	      "no top=: the default, 20");
	e = policy_find(&p, "var-top100");
	CHECK(e && e->top == 100 &&
	      e->options == (POLICY_OPT_NOFAIL | POLICY_OPT_EXPOSE_CACHE), "top=100 among options");
	e = policy_find(&p, "one");
	CHECK(e && e->top == 1, "top=1");
	e = policy_find(&p, "var-sum");
	CHECK(e && e->view->id == VIEW_CACHE_SUMMARY && policy_entry_top(e) == 0,
	      "cache-summary takes no top");
	policy_free(&p);

	bad("cache-top x /var - - - - top=0", "t.conf:1: option 'top=0': expected top=N, N files from 1 to 100");
	bad("cache-top x /var - - - - top=101", "option 'top=101': expected top=N, N files from 1 to 100");
	bad("cache-top x /var - - - - top=", "option 'top=': expected top=N");
	bad("cache-top x /var - - - - top=abc", "option 'top=abc': expected top=N");
	bad("cache-top x /var - - - - top=-5", "option 'top=-5': expected top=N");
	bad("cache-top x /var - - - - top=050", "option 'top=050': expected top=N");
	bad("cache-top x /var - - - - top=99999999999999999999", "option 'top=99999999999999999999': expected top=N");
	bad("cache-top x /var - - - - top=5,top=5", "option 'top': given twice");
	bad("cache-top x /var - - - - top=5,", "empty option");
	bad("cache-top x /var - - - - top", "option 'top': unknown option (known: nofail, expose-raw, expose-cache, expose-totals, hardlinks, top=N)");
	bad("cache-summary x /var - - - - top=5", "t.conf:1: option 'top=5' is for the views that list files (cache-top), not 'cache-summary'");
	bad("inode x /etc/passwd - - - - top=5", "option 'top=5' is for the views that list files (cache-top), not 'inode'");
	/* The same view of the same path: a repeat only with the same N. */
	bad("cache-top a /var - - - - top=20\ncache-top b /var\n", "t.conf:2: 'b' repeats 'a' (t.conf:1)");
	policy_init(&p);
	ret = run(&p, "t.conf", "cache-top a /var - - - - top=20\ncache-top b /var - - - - top=21\n", 1);
	CHECK(ret == 0, "another N is another entry: ret %d", ret);
	policy_free(&p);
}

/*
 * expose-totals: the views of a whole filesystem only, not with
 * expose-cache (which withholds nothing), owner root, and part of what
 * makes two entries of one path different.
 */
static void test_expose_totals(void)
{
	struct policy p;
	const struct policy_entry *e;
	int ret;

	policy_init(&p);
	ret = run(&p, "t.conf",
		  "cache-summary var-sum /var 0444 - - - expose-totals\n"
		  "cache-top var-top /var 0440 root nogroup - top=5,expose-totals,nofail\n"
		  "cache-summary var-sum-plain /var 0444\n",
		  1);
	CHECK(ret == 0, "expose-totals: ret %d", ret);
	CHECK(msgs && !*msgs, "expose-totals: no messages");
	e = policy_find(&p, "var-sum");
	CHECK(e && e->options == POLICY_OPT_EXPOSE_TOTALS, "expose-totals on cache-summary");
	e = policy_find(&p, "var-top");
	CHECK(e && e->top == 5 &&
	      e->options == (POLICY_OPT_EXPOSE_TOTALS | POLICY_OPT_NOFAIL),
	      "expose-totals on cache-top, among options");
	e = policy_find(&p, "var-sum-plain");
	CHECK(e && !e->options, "the same view and path without it: another entry");
	policy_free(&p);

	bad("cache x /etc/passwd 0444 - - - expose-totals",
	    "t.conf:1: option 'expose-totals' is for the views of a whole filesystem (cache-summary, cache-top), not 'cache'");
	bad("inode x /etc/passwd - - - - expose-totals", "option 'expose-totals' is for the views of a whole filesystem (cache-summary, cache-top), not 'inode'");
	bad("mount x / - - - - expose-totals", "not 'mount'");
	bad("inode-raw x /etc/passwd - - - - expose-totals", "not 'inode-raw'");
	bad("cache-summary x /var 0444 - - - expose-totals,expose-cache",
	    "t.conf:1: options 'expose-cache' and 'expose-totals' together: with expose-cache nothing is withheld, so the totals are whole already; give one of them");
	bad("cache-top x /var 0444 - - - expose-cache,top=3,expose-totals", "options 'expose-cache' and 'expose-totals' together");
	bad("cache-top x /var 0444 - - - expose-totals,expose-totals", "option 'expose-totals': given twice");
	bad("cache-summary x /var 0440 nobody - - expose-totals",
	    "t.conf:1: owner 'nobody' with 'expose-totals': the owner of a pin can chmod it wider than the policy says; expose-totals needs owner root");
	bad("cache-top x /var 0400 65534 root - nofail,expose-totals", "owner '65534' with 'expose-totals'");
	bad("cache-summary a /var 0444 - - - expose-totals\ncache-summary b /var 0440 - - - expose-totals\n",
	    "t.conf:2: 'b' repeats 'a' (t.conf:1): the same view of the same path with the same options");
}

static void test_bad_fields(void)
{
	char long_name[300], long_line[400];

	bad("inod x /etc/passwd\n", "t.conf:1: unknown view 'inod' (known: inode, cache, inode-raw, mount, cache-summary, cache-top)");
	bad("inode a.b /etc/passwd", "name 'a.b': bpffs refuses names with '.'");
	bad("inode a/b /etc/passwd", "name 'a/b': a name cannot contain '/'");
	bad("inode .. /etc/passwd", "name '..'");
	bad("inode \"\" /etc/passwd", "name '': empty name");
	bad("inode _x /etc/passwd", "must start with a letter or a digit");
	bad("inode a\xff /etc/passwd", "not valid UTF-8");
	bad("inode a\xc3\xa9 /etc/passwd", "only ASCII letters");
	bad("inode a$b /etc/passwd", "only ASCII letters");
	memset(long_name, 'n', 256);
	long_name[256] = '\0';
	snprintf(long_line, sizeof(long_line), "inode %s /etc/passwd", long_name);
	bad(long_line, "too long (at most 255 bytes)");
	bad("inode x etc/passwd", "path 'etc/passwd': not an absolute path");
	bad("inode x /etc/../passwd", "'.' and '..' components are not allowed");
	bad("inode x /etc/./passwd", "'.' and '..' components are not allowed");
	bad("inode x /etc/passwd 4440", "mode '4440': setuid, setgid and sticky bits are refused");
	bad("inode x /etc/passwd 1444", "sticky");
	bad("inode x /etc/passwd 0446", "mode '0446': world-writable pins are refused");
	bad("inode x /etc/passwd 0644", "write and execute bits are refused");
	bad("inode x /etc/passwd 0555", "write and execute bits are refused");
	bad("inode x /etc/passwd 0448", "octal digits");
	bad("inode x /etc/passwd 44", "octal digits");
	bad("inode x /etc/passwd - -root", "owner '-root': not a valid user or group name");
	bad("inode x /etc/passwd - - gr/p", "group 'gr/p'");
	bad("inode x /etc/passwd - - - - bogus", "option 'bogus': unknown option");
	bad("inode x /etc/passwd - - - - nofail,nofail", "option 'nofail': given twice");
	bad("inode x /etc/passwd - - - - nofail,", "empty option");
	bad("inode x", "at least a view, a name and a path");
	bad("inode x /a 0400 a b c d e", "too many fields");
	bad("inode x \"/a", "unterminated quote");
	bad("inode x a\"b\"", "a quote inside a field");
	bad("inode x \"/a\"b", "text right after a closing quote");
	bad("set pin-dir relative", "pin-dir 'relative': not an absolute path");
	bad("set pin-dir /sys/fs/bpf/fsiter/", "t.conf:1: pin-dir '/sys/fs/bpf/fsiter/': a trailing '/'");
	bad("set pin-dir /sys/fs/bpf/", "t.conf:1: pin-dir '/sys/fs/bpf/': a trailing '/'");
	bad("set pin-dir /", "t.conf:1: pin-dir '/': a trailing '/'");
	bad("# x\nset pin-dir /sys/fs/bpf", "t.conf:2: pin-dir '/sys/fs/bpf': that is the root of bpffs");
	bad("set pin-dir /sys//fs/bpf", "pin-dir '/sys//fs/bpf': write it with single slashes");
	bad("set pin-dir \"/sys/fs/bpf\\x2f\"", "pin-dir '/sys/fs/bpf/': a trailing '/'");
	bad("set pin-dir /sys/fs/bpf/a\n\nset pin-dir /sys/fs/bpf/a\n", "t.conf:3: 'set pin-dir' given twice (first at line 1)");
	/* Another pin directory's work directory, or inside one. */
	bad("\nset pin-dir /sys/fs/bpf/fsiter_staging", "t.conf:2: pin-dir '/sys/fs/bpf/fsiter_staging': a component ends in '_staging'");
	bad("set pin-dir /sys/fs/bpf/a_staging/b", "t.conf:1: pin-dir '/sys/fs/bpf/a_staging/b': a component ends in '_staging'");
	bad("set grant-traverse no\nset pin-dir /sys/fs/bpf/a\nset grant-traverse yes\n", "t.conf:3: 'set grant-traverse' given twice (first at line 1)");
	bad("set grant-traverse maybe", "expected 'yes', 'others' or 'no'");
	bad("set colour blue", "unknown setting 'colour'");
	bad("set pin-dir-mode 0700", "t.conf:1: pin-dir-mode '0700': expected 0755 (users list the pin names) or 0711 (names hidden)");
	bad("set pin-dir-mode 755", "pin-dir-mode '755': expected 0755");
	bad("set pin-dir-mode 0711\nset pin-dir-mode 0711\n", "t.conf:2: 'set pin-dir-mode' given twice (first at line 1)");
	bad("set pin-dir", "'set' takes a key and a value");
	bad(" inode x /a\n inode x /b\n", "t.conf:2: duplicate name 'x' (first at line 1)");
}

/*
 * A name that does not resolve: -ENOENT, one message containing WANT, and
 * the entry marked unresolved; with a second, good entry that is not.
 */
static void unresolved(const char *text, const char *want)
{
	struct policy p;
	char buf[512];
	int ret;

	policy_init(&p);
	snprintf(buf, sizeof(buf), "%s\ncache good /etc/passwd\n", text);
	ret = run(&p, "t.conf", buf, 1);
	CHECK(ret == -ENOENT, "'%s': ret %d, want -ENOENT", text, ret);
	CHECK(msgs && strstr(msgs, want), "'%s': no message '%s'", text, want);
	CHECK(count_lines(msgs) == 1, "'%s': %d messages, want 1", text,
	      count_lines(msgs));
	CHECK(p.nr_entries == 2 && p.entries[0].unresolved && !p.entries[1].unresolved,
	      "'%s': only the first entry is unresolved", text);
	policy_free(&p);
}

static void test_bad_validate(void)
{
	unresolved("inode x /etc/passwd - no-such-user-fsiter", "t.conf:1: owner 'no-such-user-fsiter': no such user");
	unresolved("inode x /etc/passwd - 4000000 ", "owner '4000000': no such user");
	unresolved("inode x /etc/passwd - - no-such-group-fsiter", "group 'no-such-group-fsiter': no such group");
	unresolved("inode x /etc/passwd - - - u:no-such-user-fsiter:r", "acl 'u:no-such-user-fsiter:r': no such user");
	unresolved("inode x /etc/passwd - - - g:nogroup:r,g:no-such-group-fsiter:-", "acl 'g:no-such-group-fsiter:-': no such group");
	/* A policy error beside it is still one: the policy is refused. */
	bad("inode x /etc/passwd - - - u:no-such-user-fsiter:rw", "acl 'u:no-such-user-fsiter:rw': not an ACL entry");
	bad("inode x /etc/passwd - - - u:nobody:rw", "acl 'u:nobody:rw': pins are only read");
	bad("inode x /etc/passwd - - - m::r", "acl 'm::r': only named entries");
	bad("inode x /etc/passwd - - - o::r", "only named entries");
	bad("inode x /etc/passwd - - - u:nobody:r,u:nobody:-", "a second entry for the same user");
	bad("inode x /etc/passwd - - - garbage", "acl 'garbage'");
	bad("inode-raw x /etc/passwd 0440", "view 'inode-raw' shows kernel addresses and is for root only; add the option 'expose-raw'");
	bad("inode-raw x /etc/passwd 0400 nobody", "view 'inode-raw' shows kernel addresses");
	bad("inode-raw x /etc/passwd - - - g:nogroup:r", "view 'inode-raw' shows kernel addresses");
	bad("mount x / - - - - expose-cache", "option 'expose-cache' is for the views that show page-cache state (inode, cache, cache-summary, cache-top), not 'mount'");
	bad("inode-raw x /etc/passwd - - - - expose-cache", "not 'inode-raw'");
	bad("cache x /etc/passwd 0440 nobody - - expose-cache", "owner 'nobody' with 'expose-cache': the owner of a pin can chmod it wider than the policy says; expose-cache needs owner root");
	bad("inode x /etc/passwd 0400 65534 root - expose-cache,nofail", "owner '65534' with 'expose-cache'");
	bad("inode-raw x /etc/passwd 0400 nobody - - expose-raw", "owner 'nobody' with 'expose-raw'");
	{
		struct policy p;

		policy_init(&p);
		CHECK(run(&p, "t.conf", "cache a /etc/passwd 0440 root nogroup - expose-cache\n"
			  "inode-raw b /etc/passwd 0440 0 nogroup - expose-raw\n"
			  "cache c /etc/passwd 0440 nobody nogroup\n", 1) == 0,
		      "expose-* with owner root and any group; a non-root owner without");
		policy_free(&p);
	}
	bad("inode a /etc/passwd\ninode b /etc/passwd\n", "t.conf:2: 'b' repeats 'a' (t.conf:1): the same view of the same path with the same options");
	{
		struct policy p;

		/* Each repeat names the first, once, in the order of the lines. */
		policy_init(&p);
		CHECK(run(&p, "t.conf", "inode a /x\nmount m /x\ninode b /x\ninode c /x\ninode d /y\n", 1) == -EINVAL &&
		      count_lines(msgs) == 2 &&
		      strstr(msgs, "t.conf:3: 'b' repeats 'a' (t.conf:1): the same") &&
		      strstr(msgs, "t.conf:4: 'c' repeats 'a' (t.conf:1): the same") &&
		      strstr(msgs, "'b'") < strstr(msgs, "'c'"),
		      "three of one view and path: two messages");
		policy_free(&p);

		policy_init(&p);
		CHECK(run(&p, "t.conf", "cache a /etc/passwd\ncache b /etc/passwd 0444 - - - expose-cache\n", 1) == 0,
		      "the same view with other options is not a duplicate");
		policy_free(&p);
	}
}

static void test_all_errors(void)
{
	struct policy p;
	int ret;

	policy_init(&p);
	ret = run(&p, "many.conf",
		  "inod a /x\n"
		  "inode b /y\n"
		  "inode c.d /z 0777\n"
		  "cache e /w - - - - what\n", 0);
	CHECK(ret == -EINVAL, "ret %d", ret);
	CHECK(count_lines(msgs) == 4, "4 messages, got %d", count_lines(msgs));
	CHECK(strstr(msgs, "many.conf:1: unknown view 'inod'") &&
	      strstr(msgs, "many.conf:3: name 'c.d'") &&
	      strstr(msgs, "many.conf:3: mode '0777'") &&
	      strstr(msgs, "many.conf:4: option 'what'"), "each error named");
	policy_free(&p);
}

static void test_dropin_override(void)
{
	struct policy p;
	const struct policy_entry *e;
	int ret;

	policy_init(&p);
	ret = run(&p, "main.conf", "inode a /etc/passwd 0400\ncache b /etc/group\n", 0);
	CHECK(ret == 0, "main: %d", ret);
	ret = run(&p, "policy.d/10-x.conf", "inode a /etc/hostname 0440 - nogroup\n"
		  "set pin-dir /sys/fs/bpf/x\n", 1);
	CHECK(ret == 0, "drop-in overrides: %d", ret);
	e = policy_find(&p, "a");
	CHECK(p.nr_entries == 2 && e && !strcmp(e->path, "/etc/hostname") &&
	      e->mode == 0440 && !strcmp(e->loc.file, "policy.d/10-x.conf"),
	      "a comes from the drop-in");
	CHECK(!strcmp(p.pin_dir, "/sys/fs/bpf/x"), "pin-dir overridden");
	/* A setting of an earlier file is replaced; twice in one file is not. */
	ret = run(&p, "policy.d/15-z.conf", "set pin-dir /sys/fs/bpf/z\nset grant-traverse yes\n", 0);
	CHECK(ret == 0 && !strcmp(p.pin_dir, "/sys/fs/bpf/z") && p.grant_traverse,
	      "settings of a drop-in replace the earlier ones: %d", ret);
	CHECK(p.pin_dir_mode == 0, "pin-dir-mode: not set");
	ret = run(&p, "policy.d/15-y.conf", "set pin-dir-mode 0711\n", 0);
	CHECK(ret == 0 && p.pin_dir_mode == 0711, "pin-dir-mode 0711: %d", ret);
	ret = run(&p, "policy.d/15-yy.conf", "set pin-dir-mode 0755\n", 0);
	CHECK(ret == 0 && p.pin_dir_mode == 0755, "a drop-in's pin-dir-mode replaces it: %d", ret);
	ret = run(&p, "policy.d/16-y.conf", "set grant-traverse others\n", 0);
	CHECK(ret == 0 && p.grant_traverse == GRANT_TRAVERSE_OTHERS,
	      "grant-traverse others");
	ret = run(&p, "policy.d/16-z.conf", "set grant-traverse no\nset grant-traverse no\n", 0);
	CHECK(ret == -EINVAL && strstr(msgs, "policy.d/16-z.conf:2: 'set grant-traverse' given twice (first at line 1)"),
	      "a setting twice in a drop-in");
	/* Many names, overridden out of order: each lands on its own entry. */
	{
		char text[64 * 200], *t = text;
		int good = 1;

		for (int i = 0; i < 200; i++)
			t += sprintf(t, "inode n%03d /m/%d\n", (i * 7) % 200, i);
		CHECK(run(&p, "big.conf", text, 0) == 0, "200 names");
		t = text;
		for (int i = 0; i < 200; i += 3)
			t += sprintf(t, "inode n%03d /d/%d\n", i, i);
		CHECK(run(&p, "big.d/1.conf", text, 0) == 0, "override a third");
		for (int i = 0; i < 200 && good; i++) {
			char name[16], path[24];

			snprintf(name, sizeof(name), "n%03d", i);
			e = policy_find(&p, name);
			if (i % 3 == 0)
				snprintf(path, sizeof(path), "/d/%d", i);
			else
				snprintf(path, sizeof(path), "/m/%d", (i * 143) % 200);
			good = e && !strcmp(e->name, name) && !strcmp(e->path, path);
		}
		CHECK(good, "every name finds its entry, overridden or not");
		CHECK(p.nr_entries == 202 && !policy_find(&p, "n200"), "202 entries");
	}
	/* A same-named entry twice in the drop-in is still an error. */
	ret = run(&p, "policy.d/20-y.conf", "inode b /a\ninode b /b\n", 0);
	CHECK(ret == -EINVAL && strstr(msgs, "policy.d/20-y.conf:2: duplicate name 'b'"),
	      "duplicate inside a drop-in");
	policy_free(&p);

	for (int i = 0; i < 2; i++) {
		char *dir = policy_dropin_dir(i ? "/etc/fsiter/policy" :
					      "/etc/fsiter/policy.conf");

		CHECK(dir && !strcmp(dir, "/etc/fsiter/policy.d"), "drop-in dir %d", i);
		free(dir);
	}
}

static void test_nul_byte(void)
{
	struct policy p;
	int ret;

	policy_init(&p);
	capture();
	ret = policy_parse_buf(&p, "nul.conf", "inode a /x\0y\n", 12);
	release();
	CHECK(ret == -EINVAL && strstr(msgs, "nul.conf:1: a NUL byte"), "NUL byte");
	policy_free(&p);
}

/* Input echoed in a message is escaped; the terminal gets no raw control. */
static void test_escaped_echo(void)
{
	char buf[16];
	struct policy p;
	int ret;

	bad("inod\x1b[2J x /etc/passwd", "unknown view 'inod\\x1b[2J'");
	bad("inode a\x7f\x9b /etc/passwd", "name 'a\\x7f\\x9b': not valid UTF-8");
	bad("inode a\xc2\x9b /etc/passwd", "name 'a\\xc2\\x9b': only ASCII");
	bad("inode x /etc/passwd 04\x07", "mode '04\\x07'");
	bad("inode x /etc/passwd - r\roo\x01t", "owner 'r\\x0doo\\x01t'");
	bad("inode x /etc/passwd - - - - nofail,\x1b]0;x\x07", "option '\\x1b]0;x\\x07'");
	bad("set colour\x1b blue", "unknown setting 'colour\\x1b'");
	bad("set grant-traverse \x1b", "grant-traverse '\\x1b'");
	bad("inode x /etc/passwd - - - u:\x1b:r", "acl 'u:\\x1b:r'");

	/* The file name too: a drop-in's name is not the administrator's. */
	policy_init(&p);
	ret = run(&p, "policy.d/\x1b[31m.conf", "inod x /a\n", 0);
	CHECK(ret == -EINVAL && strstr(msgs, "policy.d/\\x1b[31m.conf:1: unknown view"),
	      "file name escaped: %s", msgs);
	CHECK(clean(msgs), "file name: a raw control byte");
	policy_free(&p);

	CHECK(!strcmp(ESC("a\\b\nc\td\xc3\xa9\xe2\x80\xae"), "a\\\\b\\nc\\td\xc3\xa9\xe2\x80\xae"),
	      "ESC: backslash, newline, tab, UTF-8 kept");
	CHECK(!strcmp(ESC("\xc3"), "\\xc3") && !strcmp(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80") &&
	      !strcmp(ESC("\xc2\x85"), "\\xc2\\x85"),
	      "ESC: a cut sequence, a surrogate, a C1 control");
	CHECK(!strcmp(diag_escape(buf, sizeof(buf), "0123456789abcdef"), "0123456789ab...") &&
	      !strcmp(diag_escape(buf, sizeof(buf), "0123456789\x01"), "0123456789..."),
	      "diag_escape cuts with ... : %s", buf);

	/* The last guard: a message that prints input without ESC(). */
	capture();
	err("raw %s", "\x1b[2J\xff");
	release();
	CHECK(!strcmp(msgs, "fsiter-pin: raw \\x1b[2J\\xff\n"), "guard: %s", msgs);
}

/* Paths and pin-dir decode \\ \" \n \t \xNN; no other field does. */
static void test_path_escapes(void)
{
	struct policy p;
	const struct policy_entry *e;
	int ret;

	policy_init(&p);
	ret = run(&p, "t.conf",
		  "set pin-dir /sys/fs/bpf/a\\x20b\n"
		  "inode nl \"/srv/a\\nb\"\n"
		  "inode sp /srv/a\\x20b\\x7E\n"
		  "inode tab /srv/tab\\there\n"
		  "inode bs /srv/back\\\\slash\n"
		  "inode qu /srv/q\\\"uote\n"
		  "inode qq \"/srv/q \\\"x\\\"\"\n"
		  "inode esc /srv/\\x1b\\xc3\\xa9\n", 1);
	CHECK(ret == 0, "escapes: ret %d", ret);
	CHECK(p.pin_dir && !strcmp(p.pin_dir, "/sys/fs/bpf/a b"), "pin-dir decoded");
	e = policy_find(&p, "nl");
	CHECK(e && !strcmp(e->path, "/srv/a\nb"), "\\n");
	e = policy_find(&p, "sp");
	CHECK(e && !strcmp(e->path, "/srv/a b~"), "\\x20 and \\x7E");
	e = policy_find(&p, "tab");
	CHECK(e && !strcmp(e->path, "/srv/tab\there"), "\\t");
	e = policy_find(&p, "bs");
	CHECK(e && !strcmp(e->path, "/srv/back\\slash"), "\\\\");
	e = policy_find(&p, "qu");
	CHECK(e && !strcmp(e->path, "/srv/q\"uote"), "\\\" unquoted");
	e = policy_find(&p, "qq");
	CHECK(e && !strcmp(e->path, "/srv/q \"x\""), "\\\" quoted");
	e = policy_find(&p, "esc");
	CHECK(e && !strcmp(e->path, "/srv/\x1b\xc3\xa9"), "control byte and UTF-8");
	policy_free(&p);

	bad("inode x /srv/a\\x0", "path '/srv/a\\\\x0': \\x needs two hex digits");
	bad("inode x /srv/a\\xg0", "\\x needs two hex digits");
	bad("inode x /srv/a\\x00b", "\\x00: a path cannot hold a NUL byte");
	bad("inode x /srv/a\\q", "path '/srv/a\\\\q': unknown escape");
	bad("inode x /srv/a\\", "a '\\' at the end of the field");
	bad("inode x \"/srv/a\\\"", "unterminated quote");
	bad("inode x /etc/\\x2e\\x2e/passwd", "path '/etc/../passwd': '.' and '..' components");
	bad("inode x rel\\x1b", "path 'rel\\x1b': not an absolute path");
	bad("set pin-dir /sys/fs/bpf/\\x2e\\x2e", "pin-dir '/sys/fs/bpf/..'");
	bad("set pin-dir /sys/fs/bpf/\\z", "pin-dir '/sys/fs/bpf/\\\\z': unknown escape");
	/* Not decoded elsewhere: a backslash stays, and no other field takes it */
	bad("inode a\\x41 /etc/passwd", "name 'a\\\\x41': only ASCII letters");
	bad("inode x /etc/passwd - - - u:ro\\157t:r", "acl 'u:ro\\\\157t:r': a backslash; only paths take escapes");
}

/* Write TEXT to DIR/NAME with MODE. */
static void put(const char *dir, const char *name, const char *text,
		mode_t mode)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || chmod(path, mode)) {
		printf("FAIL: cannot write %s\n", path);
		exit(1);
	}
}

/* policy_load() of DIR/NAME into a fresh P, messages in msgs. */
static int load(struct policy *p, const char *dir, const char *name)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	policy_init(p);
	capture();
	diag_verbose = true;
	ret = policy_load(p, path);
	diag_verbose = false;
	release();
	return ret;
}

/* MKDIR TOP/SUB, or fail the test. */
static void make_dir(const char *top, const char *sub)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", top, sub);
	if (mkdir(path, 0700)) {
		printf("FAIL: cannot make %s\n", path);
		exit(1);
	}
}

/*
 * A pin-dir inside another policy's pin directory (a directory with its
 * work directory NAME_staging beside it), or holding one's work
 * directory, is refused, with the file and line: the other's apply
 * would remove its pins. Its own work directory beside it is fine.
 */
static void test_nested(void)
{
	char top[] = "/tmp/fsiter-test-nested.XXXXXX", text[4096], want[4096];
	struct policy p;
	int ret;

	if (!mkdtemp(top)) {
		printf("FAIL: mkdtemp\n");
		failures++;
		return;
	}
	make_dir(top, "a");
	make_dir(top, "a_staging");
	make_dir(top, "c");
	make_dir(top, "c/d");
	make_dir(top, "c/d_staging");
	make_dir(top, "e");
	make_dir(top, "e/x");
	make_dir(top, "e/x/y");
	make_dir(top, "e/x/y/f_staging");

	snprintf(text, sizeof(text), "# nested\nset pin-dir %s/a/b/x\n", top);
	snprintf(want, sizeof(want), "t.conf:2: pin-dir '%s/a/b/x': inside %s/a, the pin directory of another policy (%s/a_staging is its work directory)",
		 top, top, top);
	bad(text, want);

	snprintf(text, sizeof(text), "set pin-dir %s/c\n", top);
	snprintf(want, sizeof(want), "t.conf:1: pin-dir '%s/c': holds %s/c/d_staging, the work directory of another policy's pin directory",
		 top, top);
	bad(text, want);

	/* Deeper down: another policy's pin directory two levels below. */
	snprintf(text, sizeof(text), "set pin-dir %s/e\n", top);
	snprintf(want, sizeof(want), "t.conf:1: pin-dir '%s/e': holds %s/e/x/y/f_staging, the work directory of another policy's pin directory",
		 top, top);
	bad(text, want);

	snprintf(text, sizeof(text), "set pin-dir %s/a\ncache x /etc/passwd\n", top);
	policy_init(&p);
	ret = run(&p, "t.conf", text, 1);
	CHECK(ret == 0 && !msgs_len, "its own work directory beside it: %d", ret);
	policy_free(&p);

	snprintf(text, sizeof(text), "rm -rf '%s'", top);
	if (system(text))
		printf("cannot remove %s\n", top);
}

/*
 * A drop-in that is a FIFO is refused without being opened: a writer
 * waiting for a reader stays waiting. (A device's open() has effects of
 * its own: a tape rewinds.)
 */
static void fifo_never_opened(struct policy *p, const char *d, const char *dd)
{
	char fifo[PATH_MAX];
	int ret, status;
	pid_t writer;

	snprintf(fifo, sizeof(fifo), "%s/45-fifo.conf", dd);
	CHECK(!mkfifo(fifo, 0644), "mkfifo");
	writer = fork();
	if (writer == 0) {
		int fd = open(fifo, O_WRONLY);	/* waits for a reader */

		_exit(fd < 0 ? 2 : 0);
	}
	usleep(200 * 1000);
	ret = load(p, d, "p.conf");
	CHECK(ret == -EINVAL && strstr(msgs, "p.d/45-fifo.conf: not a regular file"),
	      "a FIFO is refused: %s", msgs);
	policy_free(p);
	usleep(200 * 1000);
	CHECK(waitpid(writer, &status, WNOHANG) == 0,
	      "and was never opened: its writer still waits");
	kill(writer, SIGKILL);
	waitpid(writer, &status, 0);
	unlink(fifo);
}

/* Drop-ins: byte order, /dev/null masks, and nobody else may write. */
static void test_load(void)
{
	char top[] = "/tmp/test_policy.XXXXXX", d[64], dd[80], sub[128], link[128];
	struct policy p;
	int ret;

	if (!mkdtemp(top)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(d, sizeof(d), "%s/etc", top);
	snprintf(dd, sizeof(dd), "%s/p.d", d);
	mkdir(d, 0755);
	mkdir(dd, 0755);
	chmod(d, 0755);
	chmod(dd, 0755);
	put(d, "p.conf", "inode a /etc/passwd\ninode b /etc/passwd 0440\n", 0644);
	put(dd, "10-bad.conf", "inod broken /x\n", 0644);
	put(dd, "B.conf", "set pin-dir /sys/fs/bpf/B\n", 0644);
	put(dd, "a.conf", "set pin-dir /sys/fs/bpf/a\n", 0644);
	put(dd, "target", "cache c /etc/group\n", 0644);
	put(dd, ".hidden.conf", "inod x /x\n", 0644);
	put(dd, "20-b.conf~", "inod x /x\n", 0644);

	ret = load(&p, d, "p.conf");
	CHECK(ret == -EINVAL && strstr(msgs, "p.d/10-bad.conf:1: unknown view 'inod'"),
	      "a drop-in is read: %d", ret);
	policy_free(&p);

	/* A link to /dev/null masks it; a link to a file is read. */
	snprintf(link, sizeof(link), "%s/10-bad.conf", dd);
	unlink(link);
	CHECK(!symlink("/dev/null", link), "symlink");
	snprintf(link, sizeof(link), "%s/30-link.conf", dd);
	CHECK(!symlink("target", link), "symlink");
	ret = load(&p, d, "p.conf");
	CHECK(ret == 0 && p.nr_entries == 3 && policy_find(&p, "c") &&
	      !policy_find(&p, "broken") && strstr(msgs, "p.d/10-bad.conf: masked"),
	      "/dev/null masks: %d %s", ret, msgs);
	CHECK(p.pin_dir && !strcmp(p.pin_dir, "/sys/fs/bpf/a"), "B.conf before a.conf");
	policy_free(&p);

	/* Not the main file: an empty policy would remove every pin. */
	ret = load(&p, "/dev", "null");
	CHECK(ret == -EINVAL && strstr(msgs, "/dev/null: not a regular file"),
	      "the policy file itself cannot be /dev/null: %s", msgs);
	policy_free(&p);
	snprintf(link, sizeof(link), "%s/40-zero.conf", dd);
	CHECK(!symlink("/dev/zero", link), "symlink");
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EINVAL && strstr(msgs, "p.d/40-zero.conf: not a regular file"),
	      "another device is refused: %s", msgs);
	policy_free(&p);
	unlink(link);
	fifo_never_opened(&p, d, dd);

	/* Writable by others: the file, its directory, the drop-in directory */
	put(d, "p.conf", "inode a /etc/passwd\n", 0664);
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EPERM && strstr(msgs, "etc/p.conf: writable by its group (mode 0664): refusing a policy that a user other than root can change") &&
	      !policy_find(&p, "a"), "group-writable file: %d %s", ret, msgs);
	policy_free(&p);
	put(d, "p.conf", "inode a /etc/passwd\n", 0646);
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EPERM && strstr(msgs, "etc/p.conf: writable by every user (mode 0646)"),
	      "world-writable file: %s", msgs);
	policy_free(&p);
	put(d, "p.conf", "inode a /etc/passwd\n", 0644);
	chmod(dd, 0777);
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EPERM && strstr(msgs, "etc/p.d: writable by every user (mode 0777)") &&
	      p.nr_entries == 1 && !p.pin_dir, "world-writable drop-in dir, not read: %s", msgs);
	policy_free(&p);
	chmod(dd, 01777);
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EPERM && strstr(msgs, "etc/p.d: writable by every user (mode 1777)"),
	      "sticky does not help a drop-in dir: %s", msgs);
	policy_free(&p);
	chmod(dd, 0755);
	put(dd, "50-w.conf", "inode w /etc/passwd\n", 0666);
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EPERM && strstr(msgs, "p.d/50-w.conf: writable by every user") &&
	      !policy_find(&p, "w") && policy_find(&p, "c"), "a writable drop-in: %s", msgs);
	policy_free(&p);
	chmod(d, 0775);
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EPERM && strstr(msgs, "/etc: writable by its group (mode 0775)"),
	      "the policy's directory: %s", msgs);
	policy_free(&p);
	chmod(d, 01777);
	snprintf(sub, sizeof(sub), "%s/50-w.conf", dd);
	unlink(sub);
	ret = load(&p, d, "p.conf");
	CHECK(ret == 0, "a sticky directory, as /tmp, may hold the policy: %s", msgs);
	policy_free(&p);
	chmod(d, 0755);

	/* A link leads elsewhere: the directory that holds its target counts. */
	snprintf(sub, sizeof(sub), "%s/w", top);
	mkdir(sub, 0777);
	chmod(sub, 0777);
	put(sub, "t.conf", "inode t /etc/passwd\n", 0644);
	snprintf(link, sizeof(link), "%s/60-t.conf", dd);
	snprintf(sub, sizeof(sub), "%s/w/t.conf", top);
	CHECK(!symlink(sub, link), "symlink");
	ret = load(&p, d, "p.conf");
	CHECK(ret == -EPERM && strstr(msgs, "/w: writable by every user (mode 0777)") &&
	      !policy_find(&p, "t"), "a drop-in linked into a writable directory: %s", msgs);
	policy_free(&p);
	snprintf(sub, sizeof(sub), "%s/w", top);
	chmod(sub, 01777);
	ret = load(&p, d, "p.conf");
	CHECK(ret == 0 && policy_find(&p, "t"), "... into a sticky one: %s", msgs);
	policy_free(&p);
	chmod(sub, 0777);
	unlink(link);
	snprintf(link, sizeof(link), "%s/main.conf", d);
	snprintf(sub, sizeof(sub), "%s/w/t.conf", top);
	CHECK(!symlink(sub, link), "symlink");
	ret = load(&p, d, "main.conf");
	CHECK(ret == -EPERM && strstr(msgs, "/w: writable by every user (mode 0777)"),
	      "the policy file linked into a writable directory: %s", msgs);
	policy_free(&p);
	unlink(link);

	/* Owned by someone else (needs root to chown). */
	if (geteuid() == 0) {
		snprintf(sub, sizeof(sub), "%s/p.conf", d);
		CHECK(!chown(sub, 65534, 65534), "chown");
		ret = load(&p, d, "p.conf");
		CHECK(ret == -EPERM && strstr(msgs, "etc/p.conf: owned by uid 65534: refusing"),
		      "owned by nobody: %s", msgs);
		policy_free(&p);
		CHECK(!chown(sub, 0, 0) && !chown(dd, 65534, 0), "chown");
		ret = load(&p, d, "p.conf");
		CHECK(ret == -EPERM && strstr(msgs, "etc/p.d: owned by uid 65534"),
		      "drop-in dir owned by nobody: %s", msgs);
		policy_free(&p);
	} else {
		printf("skipped: the owner checks need root\n");
	}
	CHECK(clean(msgs), "no raw control byte");

	snprintf(link, sizeof(link), "rm -rf '%s'", top);
	if (system(link))
		printf("cannot remove %s\n", top);
}

/*
 * policy_changed(): apply reads the policy again under the lock. Any
 * change of the file or a drop-in, a new or masked drop-in, or a file
 * that is gone counts; reading the same bytes again does not.
 */
static void test_changed(void)
{
	char top[] = "/tmp/test_policy_changed.XXXXXX", dd[64], path[96];
	struct policy p;
	int ret;

	if (!mkdtemp(top)) {
		CHECK(0, "mkdtemp");
		return;
	}
	chmod(top, 0755);
	snprintf(dd, sizeof(dd), "%s/p.d", top);
	mkdir(dd, 0755);
	chmod(dd, 0755);
	snprintf(path, sizeof(path), "%s/p.conf", top);
	put(top, "p.conf", "cache a /etc/passwd 0440 root root u:root:r\n", 0644);
	put(dd, "10-b.conf", "cache b /etc/group\n", 0644);

	CHECK(load(&p, top, "p.conf") == 0, "load: %s", msgs);
	CHECK(policy_changed(&p, path) == 0, "the same bytes: not changed");
	put(top, "p.conf", "cache a /etc/passwd 0440 root root\n", 0644);
	CHECK(policy_changed(&p, path) == 1, "the file changed");
	policy_free(&p);

	CHECK(load(&p, top, "p.conf") == 0, "load: %s", msgs);
	put(dd, "10-b.conf", "cache b /etc/group 0444\n", 0644);
	CHECK(policy_changed(&p, path) == 1, "a drop-in changed");
	policy_free(&p);

	CHECK(load(&p, top, "p.conf") == 0, "load: %s", msgs);
	put(dd, "20-c.conf", "", 0644);
	CHECK(policy_changed(&p, path) == 1, "a new drop-in, even empty");
	policy_free(&p);

	CHECK(load(&p, top, "p.conf") == 0, "load: %s", msgs);
	snprintf(path, sizeof(path), "%s/20-c.conf", dd);
	unlink(path);
	CHECK(!symlink("/dev/null", path), "symlink");
	snprintf(path, sizeof(path), "%s/p.conf", top);
	CHECK(policy_changed(&p, path) == 1, "an empty drop-in masked");
	policy_free(&p);

	/* Masked both times; the text moved between files: still changed. */
	CHECK(load(&p, top, "p.conf") == 0, "load: %s", msgs);
	CHECK(policy_changed(&p, path) == 0, "masked both times: not changed");
	put(top, "p.conf", "", 0644);
	put(dd, "10-b.conf", "cache a /etc/passwd 0440 root root\ncache b /etc/group 0444\n", 0644);
	CHECK(policy_changed(&p, path) == 1, "the same lines, in another file");
	policy_free(&p);

	CHECK(load(&p, top, "p.conf") == 0, "load: %s", msgs);
	capture();
	ret = policy_changed(&p, path);
	release();
	CHECK(ret == 0 && !msgs_len, "quiet, and not changed: %d %s", ret, msgs);
	put(top, "p.conf", "inod broken /x\n", 0644);
	capture();
	ret = policy_changed(&p, path);
	release();
	CHECK(ret == 1 && !msgs_len, "now broken: changed, and says nothing: %d %s", ret, msgs);
	unlink(path);
	CHECK(policy_changed(&p, path) == 1, "gone: changed");
	policy_free(&p);

	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	if (system(path))
		printf("cannot remove %s\n", top);
}

int main(void)
{
	test_good();
	test_top();
	test_expose_totals();
	test_bad_fields();
	test_bad_validate();
	test_all_errors();
	test_dropin_override();
	test_nul_byte();
	test_escaped_echo();
	test_path_escapes();
	test_load();
	test_nested();
	test_changed();
	free(msgs);
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
