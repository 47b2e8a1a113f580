// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include "policy.h"
#include "policy_fields.h"

static bool name_char(char c)
{
	return isascii(c) && (isalnum(c) || strchr("-_+@:", c));
}

const char *policy_name_error(const char *name)
{
	size_t len = strlen(name);
	const char *s;

	if (len == 0)
		return "empty name";
	if (len > POLICY_NAME_MAX)
		return "too long (at most 255 bytes)";
	for (s = name; *s; ) {
		size_t n = utf8_len((const unsigned char *)s);

		if (!n)
			return "not valid UTF-8";
		s += n;
	}
	if (strchr(name, '/'))
		return "a name cannot contain '/'";
	if (strchr(name, '.'))
		return "bpffs refuses names with '.'";
	for (s = name; *s; s++)
		if (!name_char(*s))
			return "only ASCII letters, digits and - _ + @ : are allowed";
	if (!isalnum((unsigned char)name[0]))
		return "a name must start with a letter or a digit";
	return NULL;
}

const char *policy_path_error(const char *path)
{
	const char *c = path;

	if (path[0] != '/')
		return "not an absolute path";
	if (strlen(path) >= PATH_MAX)
		return "longer than PATH_MAX";
	/* Walk the components: "." and ".." would let the text of the
	 * policy say one thing and the kernel resolve another.
	 */
	while (*c) {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2)))
			return "'.' and '..' components are not allowed";
		if (n > NAME_MAX)
			return "a component is longer than NAME_MAX";
		c += n;
	}
	return NULL;
}

const char *policy_pin_dir_error(const char *dir)
{
	const char *why = policy_path_error(dir), *work = POLICY_WORK_SUFFIX, *c;
	size_t len = strlen(dir), n = strlen(work);

	if (why)
		return why;
	if (strstr(dir, "//"))
		return "write it with single slashes";
	if (dir[len - 1] == '/')
		return "a trailing '/'; write the directory without it";
	if (!strcmp(dir, "/sys/fs/bpf"))
		return "that is the root of bpffs, which other programs share; name a directory inside it, like /sys/fs/bpf/fsiter";
	for (c = strstr(dir, work); c; c = strstr(c + 1, work))
		if (c[n] == '/' || !c[n])
			return "a component ends in '" POLICY_WORK_SUFFIX "', as the work directory of a pin directory does, which apply empties";
	return NULL;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

const char *policy_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		int hi, lo;

		if (*s != '\\') {
			*out++ = *s;
			continue;
		}
		switch (*++s) {
		case '\\':
		case '"':
			*out++ = *s;
			break;
		case 'n':
			*out++ = '\n';
			break;
		case 't':
			*out++ = '\t';
			break;
		case 'x':
			hi = hex_digit(s[1]);
			lo = hi < 0 ? -1 : hex_digit(s[2]);
			if (lo < 0)
				return "\\x needs two hex digits, like \\x0a";
			if (!hi && !lo)
				return "\\x00: a path cannot hold a NUL byte";
			*out++ = (char)(hi << 4 | lo);
			s += 2;
			break;
		case '\0':
			return "a '\\' at the end of the field";
		default:
			return "unknown escape (known: \\\\, \\\", \\n, \\t, \\xNN)";
		}
	}
	*out = '\0';
	return NULL;
}

const char *policy_mode_parse(const char *s, mode_t *mode)
{
	unsigned int m = 0;
	size_t len = strlen(s);

	if (len < 3 || len > 4)
		return "expected 3 or 4 octal digits, like 0440";
	for (; *s; s++) {
		if (*s < '0' || *s > '7')
			return "expected 3 or 4 octal digits, like 0440";
		m = m << 3 | (*s - '0');
	}
	if (m & (S_ISUID | S_ISGID | S_ISVTX))
		return "setuid, setgid and sticky bits are refused";
	if (m & S_IWOTH)
		return "world-writable pins are refused";
	if (m & 0333)
		return "pins are only read: write and execute bits are refused";
	*mode = m;
	return NULL;
}

const char *policy_account_error(const char *s)
{
	if (strlen(s) > 256)
		return "too long";
	if (s[0] == '-')
		return "not a valid user or group name";
	for (const char *c = s; *c; c++)
		if (!isascii(*c) || !(isalnum(*c) || strchr("_-.$", *c)))
			return "not a valid user or group name";
	return NULL;
}

static const struct {
	const char *name;
	unsigned int flag;
} options[] = {
	{ "nofail", POLICY_OPT_NOFAIL },
	{ "expose-raw", POLICY_OPT_EXPOSE_RAW },
	{ "expose-cache", POLICY_OPT_EXPOSE_CACHE },
	{ "expose-totals", POLICY_OPT_EXPOSE_TOTALS },
	{ "hardlinks", POLICY_OPT_HARDLINKS },
};

/* top=N: 1 to POLICY_TOP_MAX, decimal, no sign or leading zero. */
static const char *top_parse(const char *s, size_t n, unsigned int *top)
{
	unsigned int v = 0;

	if (n == 0 || n > 3 || s[0] == '0')
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		v = v * 10 + (s[i] - '0');
	}
	if (v > POLICY_TOP_MAX)
		goto bad;
	*top = v;
	return NULL;
bad:
	return "expected top=N, N files from 1 to " POLICY_TOP_MAX_STR;
}

const char *policy_options_parse(const char *s, unsigned int *out,
				 unsigned int *top, const char **bad)
{
	static char word[64];
	unsigned int flags = 0;

	*top = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		size_t i;

		if (n >= 4 && !strncmp(s, "top=", 4)) {
			const char *why;

			if (*top) {
				*bad = "top";
				return "given twice";
			}
			why = top_parse(s + 4, n - 4, top);
			if (why) {
				if (n >= sizeof(word))
					n = sizeof(word) - 1;
				memcpy(word, s, n);
				word[n] = '\0';
				*bad = word;
				return why;
			}
			s += n;
			if (*s == ',' && !*++s) {
				*bad = "";
				return "empty option";
			}
			continue;
		}

		for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
			if (strlen(options[i].name) == n &&
			    !strncmp(options[i].name, s, n))
				break;
		if (i == sizeof(options) / sizeof(options[0])) {
			if (n >= sizeof(word))
				n = sizeof(word) - 1;
			memcpy(word, s, n);
			word[n] = '\0';
			*bad = word;
			return n ? "unknown option (known: nofail, expose-raw, expose-cache, expose-totals, hardlinks, top=N)" :
				   "empty option";
		}
		if (flags & options[i].flag) {
			*bad = options[i].name;
			return "given twice";
		}
		flags |= options[i].flag;
		s += n;
		if (*s == ',' && !*++s) {
			*bad = "";
			return "empty option";
		}
	}
	*out = flags;
	return NULL;
}
