// SPDX-License-Identifier: GPL-2.0-only
/* bpftune-ship's command line (see man/bpftune-ship.8.scd). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"

#define DEFAULT_INTERVAL_MS	1000
#define DEFAULT_BATCH		1000
#define DEFAULT_BATCH_KB	4096
#define DEFAULT_TIMEOUT_MS	5000
#define DEFAULT_GIVE_UP_S	30

enum {
	OPT_REDIS = 0x100, OPT_DIR, OPT_STATE, OPT_ONCE, OPT_INTERVAL, OPT_BATCH,
	OPT_BATCH_KB, OPT_MAXLEN, OPT_MAX_AGE, OPT_TIMEOUT, OPT_GIVE_UP,
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: bpftune-ship --redis redis://[user:password@]host:port[/db] [OPTIONS]\n"
"Stream the rows of bpftune's telemetry run files into Redis Streams, at\n"
"least once, from a watermark kept per run file and table.\n\n"
"      --redis URL       redis://[[user]:password@]host[:port][/db] or\n"
"                        unix://[[user]:password@]/path[?db=N]\n"
"                        (default: $%s)\n"
"      --dir DIR         run files to ship (default %s)\n"
"      --state DIR       watermarks (default %s)\n"
"      --once            ship what exists now and exit (0: all shipped,\n"
"                        1: DIR unreadable, 2: Redis failed, 3: some\n"
"                        files refused)\n"
"      --interval MS     between passes over DIR (default %d)\n"
"      --batch N         rows per pipelined batch (default %d)\n"
"      --batch-kb KB     ... and at most KB kilobytes (default %d)\n"
"      --maxlen N        trim each stream to about N entries (XADD MAXLEN ~)\n"
"      --max-age S       trim entries older than S seconds (XADD MINID ~)\n"
"      --timeout MS      connect and command timeout (default %d)\n"
"      --give-up S       with --once: how long Redis may fail (default %d)\n"
"  -v, --verbose         log every batch\n"
"  -V, --version         show the version and exit\n"
"  -h, --help            show this help and exit\n",
		SHIP_ENV_URL, SHIP_DEFAULT_DIR, SHIP_DEFAULT_STATE, DEFAULT_INTERVAL_MS,
		DEFAULT_BATCH, DEFAULT_BATCH_KB, DEFAULT_TIMEOUT_MS, DEFAULT_GIVE_UP_S);
}

static int number(const char *opt, const char *arg, long long min, long long max,
		  long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || *v < min || *v > max) {
		fprintf(stderr, "bpftune-ship: --%s takes %lld to %lld, not '%s'\n",
			opt, min, max, arg);
		return -1;
	}
	return 0;
}

static void defaults(struct ship_main *m)
{
	memset(m, 0, sizeof(*m));
	m->opts.dir = SHIP_DEFAULT_DIR;
	m->opts.state = SHIP_DEFAULT_STATE;
	m->opts.batch_rows = DEFAULT_BATCH;
	m->opts.batch_bytes = DEFAULT_BATCH_KB * 1024;
	m->interval_ms = DEFAULT_INTERVAL_MS;
	m->give_up_s = DEFAULT_GIVE_UP_S;
	m->cn.timeout_ms = DEFAULT_TIMEOUT_MS;
}

/* a numeric option; -1 if out of range */
static int numeric(int c, const char *arg, struct ship_main *m)
{
	long long v;

	switch (c) {
	case OPT_INTERVAL:
		if (number("interval", arg, 10, 3600000, &v))
			return -1;
		m->interval_ms = v;
		break;
	case OPT_BATCH:
		if (number("batch", arg, 1, 100000, &v))
			return -1;
		m->opts.batch_rows = v;
		break;
	case OPT_BATCH_KB:
		if (number("batch-kb", arg, 1, 1024 * 1024, &v))
			return -1;
		m->opts.batch_bytes = v * 1024;
		break;
	case OPT_MAXLEN:
		return number("maxlen", arg, 1, 1LL << 40, &m->opts.maxlen);
	case OPT_MAX_AGE:
		return number("max-age", arg, 1, 100LL * 365 * 86400, &m->opts.max_age_s);
	case OPT_TIMEOUT:
		if (number("timeout", arg, 100, 600000, &v))
			return -1;
		m->cn.timeout_ms = v;
		break;
	case OPT_GIVE_UP:
		if (number("give-up", arg, 0, 86400, &v))
			return -1;
		m->give_up_s = v;
		break;
	}
	return 0;
}

/* hide the password from ps and /proc/PID/cmdline once it is parsed */
static void hide_password(char *url)
{
	char *rest = strstr(url, "://"), *at, *colon;

	if (!rest)
		return;
	rest += 3;
	at = strrchr(rest, '@');
	if (!at)
		return;
	colon = memchr(rest, ':', at - rest);
	memset(colon ? colon + 1 : rest, '*', at - (colon ? colon + 1 : rest));
}

static int check(struct ship_main *m, char *url)
{
	char err[256];

	if (!url || !*url) {
		fprintf(stderr, "bpftune-ship: --redis URL is needed (or $%s)\n", SHIP_ENV_URL);
		return -1;
	}
	if (ship_url_parse(url, &m->cn.url, err, sizeof(err))) {
		fprintf(stderr, "bpftune-ship: --redis: %s\n", err);
		return -1;
	}
	if (m->opts.maxlen && m->opts.max_age_s) {
		fprintf(stderr, "bpftune-ship: --maxlen and --max-age exclude each other (XADD takes one of MAXLEN and MINID)\n");
		return -1;
	}
	ship_url_describe(&m->cn.url, m->url_desc, sizeof(m->url_desc));
	hide_password(url);
	return 0;
}

int ship_parse_args(int argc, char **argv, struct ship_main *m)
{
	static const struct option longopts[] = {
		{ "redis", required_argument, NULL, OPT_REDIS },
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "batch", required_argument, NULL, OPT_BATCH },
		{ "batch-kb", required_argument, NULL, OPT_BATCH_KB },
		{ "maxlen", required_argument, NULL, OPT_MAXLEN },
		{ "max-age", required_argument, NULL, OPT_MAX_AGE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "give-up", required_argument, NULL, OPT_GIVE_UP },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *url = getenv(SHIP_ENV_URL);
	int c;

	defaults(m);
	while ((c = getopt_long(argc, argv, "vVh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_REDIS:
			url = optarg;
			break;
		case OPT_DIR:
			m->opts.dir = optarg;
			break;
		case OPT_STATE:
			m->opts.state = optarg;
			break;
		case OPT_ONCE:
			m->opts.once = true;
			break;
		case 'v':
			ship_verbose = 1;
			break;
		case 'V':
			printf("bpftune-ship %s\n", SHIP_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			usage(stderr);
			return 1;
		default:
			if (numeric(c, optarg, m))
				return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bpftune-ship: unexpected argument '%s'\n", argv[optind]);
		return 1;
	}
	return check(m, url) ? 1 : -1;
}
