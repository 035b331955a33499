// SPDX-License-Identifier: GPL-2.0
/*
 * bloomctl: manage the kernel's Bloom filters (/dev/bloom) from a shell,
 * ipset-style: "bloomctl VERB [OPTIONS] ARGS". This file holds the verb
 * table, the global options and the help texts; each verb lives in cmd_*.c.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"
#include "feed.h"

struct verb {
	const char *name;
	int (*run)(const char *dev, int argc, char **argv);
	const char *synopsis;
	const char *help;
};

static const struct verb verbs[] = {
	{ "create", cmd_create,
	  "create NAME [--type standard|blocked|counting|dleft|timed] two of:\n"
	  "       --capacity N --fpp P --bits-per-key C --memory SIZE\n"
	  "       [--hashes K] [--hash-key HEX32 | --hash-key-file FILE]\n"
	  "       [--hash siphash-1-3|siphash-2-4]\n"
	  "       [--bits M --hashes K] [--scalable [--growth S] [--tightening R]]\n"
	  "       [--keys strings|ipv4|ipv6]\n"
	  "       [--keys ipv4|ipv6 --prefix-lengths LIST]\n"
	  "       [--keys ipv4|ipv6 --prefix-feed FILE [--lookups E] [--skip-invalid]\n"
	  "       [--country CC]]\n"
	  "       [--timeout DURATION [--generations G]] [--exist]\n"
	  "       create NAME --capacity N --fpp P --key-timeouts [--timeout DEFAULT]\n"
	  "       [--max-timeout MAX] [--scalable [--growth S] [--tightening R]]\n"
	  "       [--keys ipv4|ipv6] [--exist]\n"
	  "       create NAME --like OTHER",
	  "Creates filter NAME from any two of: N keys (capacity), false-positive\n"
	  "rate P at N keys, C bits per key, SIZE bytes of memory for the table.\n"
	  "The module sizes it exactly as 'bloomctl calc' with the same numbers\n"
	  "shows. Sizes take k/M/G/T (1M = 1000000) and Ki/Mi/Gi/Ti (1Mi =\n"
	  "1048576), as max_memory does.\n"
	  "  -t, --type T      standard (default); blocked (one cache line per key);\n"
	  "                    counting (deletable, 4x the memory of standard);\n"
	  "                    dleft (d-left counting: deletable in about half the\n"
	  "                    memory of counting from p = 0.01 down, 0.74x at\n"
	  "                    0.1, more than it above 0.23; an add fails when its\n"
	  "                    buckets are full, so give it its real capacity)\n"
	  "  -c, --capacity N  keys the filter is sized for\n"
	  "  -p, --fpp P       false-positive rate at N keys (" BLOOM_FPP_RANGE_STR ", or a\n"
	  "                    percentage: 1% is 0.01); the module\n"
	  "                    counts whole parts per billion, so P is rounded down\n"
	  "                    to one and the value used is printed if that changed it)\n"
	  "      --bits-per-key C  bits per key of capacity, as info counts bits\n"
	  "                    (counting: 4-bit counters); k chosen for C\n"
	  "      --memory SIZE the most bytes the table may take (256Mi = 256 MiB,\n"
	  "                    1G = 10^9 bytes); with --fpp: the most keys that fit\n"
	  "      --hashes K    standard, counting: use K hashes (1 to "
	  BLOOM_HASHES_MAX_STR "); m is\n"
	  "                    still sized so that the rate holds\n"
	  "      --hash-key H  the 128-bit SipHash key as 32 hex digits (default:\n"
	  "                    random); the same key and geometry give the same bits;\n"
	  "                    other users can see it in ps: prefer --hash-key-file\n"
	  "      --hash-key-file FILE  the key from FILE: 32 hex digits and at most\n"
	  "                    a newline (openssl rand -hex 16 >FILE), or exactly\n"
	  "                    16 bytes; '-': standard input\n"
	  "      --hash H      the keyed hash: siphash-1-3 (default) or siphash-2-4\n"
	  "                    (the only one before; slower, more rounds)\n"
	  "      --bits M      explicit geometry, with --hashes K, --capacity and\n"
	  "                    --fpp (recorded): M bits (blocked: a multiple of 512;\n"
	  "                    counting: M counters; not for dleft)\n"
	  "      --scalable    grow with the keys (standard, blocked, and timed with\n"
	  "                    --key-timeouts): stage i holds N*S^i keys at rate\n"
	  "                    P*(1-R)*R^i, so the rate over all stages stays under\n"
	  "                    P; at most 32 stages; with --capacity N and --fpp P\n"
	  "                    only; timed stages that expired empty are freed\n"
	  "      --growth S    with --scalable: each stage S times the last (2 to 16,\n"
	  "                    default 2; 10 with --key-timeouts, so that a lookup\n"
	  "                    at 10 N tests two stages)\n"
	  "      --tightening R  with --scalable: each stage's rate R times the\n"
	  "                    last's (0.5 to 0.95, default 0.85)\n"
	  "      --keys KIND   what the keys are: strings, ipv4 or ipv6 (default:\n"
	  "                    said by the first add of addresses); a test, add or\n"
	  "                    firewall rule of another kind is refused\n"
	  "      --timeout DURATION  keys expire (standard and blocked only): a key\n"
	  "                    tests present for at least DURATION after its last\n"
	  "                    add and is gone DURATION x (1 + 1/(G-1)) after it at\n"
	  "                    most (plus the delay of a rotation a loaded machine\n"
	  "                    runs late); N is the keys per DURATION (the rate stays\n"
	  "                    under P for up to N keys per DURATION); seconds, or\n"
	  "                    a number with s, m, h or d (90s, 15m, 1h, 7d), from\n"
	  "                    1 s to 2147483 s; with --capacity N and --fpp P only\n"
	  "      --generations G  with --timeout: G generations (2 to 16, default\n"
	  "                    5: 1.7 times a plain filter's memory at p = 0.01,\n"
	  "                    1.55 at 1e-4, a key gone 1.25 x DURATION after its\n"
	  "                    last add at most)\n"
	  "      --like OTHER  an empty filter with the type, geometry and hash key\n"
	  "                    of filter OTHER, so that the two can be merged\n"
	  "                    (bloomctl merge); takes no other option\n"
	  "      --key-timeouts  each key has its own timeout and can be deleted, as\n"
	  "                    in ipset's hash:ip timeout (type timed: d-left cells\n"
	  "                    that hold each key's expiry, 42.7 bits a key at\n"
	  "                    1e-4); --timeout is then the timeout of keys added\n"
	  "                    without one: 0 (the default) for none, or whole\n"
	  "                    seconds up to 2147483647 (600, 10m, 4h, 30d, 1y)\n"
	  "      --max-timeout MAX  with --key-timeouts: the largest timeout a key\n"
	  "                    may get (default 2147483647 s); timeout 0, none,\n"
	  "                    is not bounded by it: such a key stays until del\n"
	  "      --prefix-lengths LIST  with --keys ipv4 or ipv6: store netblocks\n"
	  "                    only at these lengths (comma-separated, at most 7):\n"
	  "                    add, test and del store another netblock as the\n"
	  "                    netblocks of the next length (a /20 at /24 as 16\n"
	  "                    keys; past the last, as its addresses), so that an\n"
	  "                    address is tested at most 1 + the lengths times\n"
	  "      --prefix-feed FILE  with --keys ipv4 or ipv6: choose the lengths\n"
	  "                    from FILE's netblocks: the fewest lookups (up to 6)\n"
	  "                    whose filter takes at most 2x the memory of one\n"
	  "                    lookup per length at the same address rate; no\n"
	  "                    --capacity: the keys FILE stores\n"
	  "      --lookups E   with --prefix-feed: the lengths (E - 1 of them) that\n"
	  "                    store FILE in the fewest keys (2 to 8)\n"
	  "      --skip-invalid  with --prefix-feed: plan from the good lines of a\n"
	  "                    feed with bad ones, naming them; without it a bad\n"
	  "                    line refuses the feed, as add refuses it, and a feed\n"
	  "                    of no addresses is refused always\n"
	  "      --country CC  with --prefix-feed: its tor-geoipdb lines of\n"
	  "                    country CC, as add --country takes them\n"
	  "  -exist, --exist   succeed when a filter of that name with the same\n"
	  "                    type, capacity, rate, key kind and timeouts exists\n"
	  "Numbers that cannot make a filter are refused (exit 2) with the numbers\n"
	  "that would fit.\n" },
	{ "calc", cmd_calc,
	  "calc [--type standard|blocked|counting|dleft|timed] two of:\n"
	  "       --capacity N --fpp P --bits-per-key C --memory SIZE\n"
	  "       [--hashes K] [--netblock-lengths L] [--json]\n"
	  "       calc [--keys ipv4|ipv6] --prefix-feed FILE [--lookups E]\n"
	  "       [--skip-invalid] [--country CC] [--prefix-lengths LIST] [--type T]\n"
	  "       [two of the above]\n"
	  "       calc --scalable [--type standard|blocked|timed] --capacity N --fpp P\n"
	  "       [--growth S] [--tightening R] [--json]\n"
	  "       calc --timeout DURATION [--generations G] [--type standard|blocked]\n"
	  "       --capacity N --fpp P [--json]",
	  "Shows the filter that create would make from the same numbers, without\n"
	  "the module: bits, hashes, memory (the table), bits per key and its ratio\n"
	  "to the theory (-log2(p) / ln 2), and the expected false-positive rate at\n"
	  "capacity. Without --type, all five types side by side.\n"
	  "  -t, --type T      one type only\n"
	  "  -j, --json        a JSON object (an array without --type) with the keys\n"
	  "                    of 'info --json': type, capacity, fpp, fpp_ppb, bits,\n"
	  "                    hashes, bits_per_key, memory_bytes (the table; info's\n"
	  "                    memory_bytes adds the fixed overhead, its\n"
	  "                    table_bytes is this), and memory_bits_per_key,\n"
	  "                    theory_bits_per_key, ratio_to_theory (memory bits\n"
	  "                    per key to -log2(fpp) / ln 2), expected_fpp,\n"
	  "                    capacity_capped (--memory holds more than the most\n"
	  "                    keys a filter may have: capacity capped there)\n"
	  "      --netblock-lengths L  the filter will hold netblocks of L prefix\n"
	  "                    lengths shorter than an address: an address is then\n"
	  "                    tested L + 1 times and its rate is 1 - (1 - p)^(L+1);\n"
	  "                    adds the column ADDR FPP and how to size for an\n"
	  "                    address rate P (--fpp P/(L+1)); --json:\n"
	  "                    address_lookups, address_fpp, address_sizing_fpp\n"
	  "      --keys ipv4|ipv6  the family of --prefix-feed (default ipv4)\n"
	  "      --prefix-lengths LIST, --prefix-feed FILE, --lookups E,\n"
	  "      --skip-invalid, --country CC  as create\n"
	  "                    takes them: prints the lengths, the netblocks FILE\n"
	  "                    gives and the keys they are stored as, and the rate\n"
	  "                    an address meets (at most E x FPP); the capacity,\n"
	  "                    when not given, is the keys stored\n"
	  "      --scalable    the stages of a scalable filter (standard and blocked\n"
	  "                    without --type; timed, --key-timeouts --scalable, with\n"
	  "                    it), as create --scalable makes them:\n"
	  "                    each stage's capacity, rate, bits, hashes and table,\n"
	  "                    and for the first i stages full: keys, table, bits\n"
	  "                    per key and its ratio to one filter of the type sized\n"
	  "                    for as many keys at P; every stage growth can reach.\n"
	  "                    --json: type, scalable, capacity, fpp, fpp_ppb,\n"
	  "                    growth, tightening, stage_count and stages (objects\n"
	  "                    with capacity, total_capacity, fpp, fpp_ppb, bits,\n"
	  "                    hashes, memory_bytes, total_memory_bytes, bits_per_key,\n"
	  "                    optimal_memory_bytes, vs_optimal)\n"
	  "      --timeout DURATION  an expiring filter of N keys per DURATION, for\n"
	  "                    G = 3 to 9 (or --generations G): each generation's\n"
	  "                    keys, rate, bits and hashes, all tables' memory, its\n"
	  "                    bits per key of N and ratio to a plain filter of N\n"
	  "                    at P, and the longest life in timeouts. --json: one\n"
	  "                    object per row (generations, generation_capacity,\n"
	  "                    generation_fpp_ppb, generation_bits, hashes,\n"
	  "                    memory_bytes, bits_per_key, plain_memory_bytes,\n"
	  "                    vs_plain, longest_life_ms)\n"
	  "The other options are those of create.\n" },
	{ "add", cmd_add,
	  "add NAME [--ipv4|--ipv6] [--allow-short-prefixes] [--timeout T] [--exist]\n"
	  "       [--allow-overfill] KEY...\n"
	  "       add NAME [--ipv4|--ipv6] [--skip-empty] [--skip-invalid]\n"
	  "       [--mask-host-bits] [--allow-short-prefixes] [--timeout T]\n"
	  "       [--allow-overfill] [-v] -f FILE\n"
	  "       add NAME --ipv4|--ipv6 --geoip FILE --country CC [options of -f]",
	  "Adds keys to filter NAME (needs CAP_NET_ADMIN).\n"
	  "      --timeout T   a filter created with --key-timeouts: the keys test\n"
	  "                    present for at least T (0: no timeout; whole seconds\n"
	  "                    up to the filter's largest, 600, 10m, 4h, 30d, 1y)\n"
	  "                    and are gone by T + max(1 s, T/16); a key added\n"
	  "                    again keeps the later of its expiries. Without it,\n"
	  "                    the filter's default. The \"timeout N\" of ipset save\n"
	  "                    lines gives that line's key its own\n"
	  "  -exist, --exist   ipset's -exist: accepted (a key present already is\n"
	  "                    never an error)\n"
	  "      --allow-overfill  add keys that take a standard, blocked or\n"
	  "                    counting filter past 100 times the false-positive\n"
	  "                    rate it was created for (at most 0.5), which is\n"
	  "                    refused otherwise: nothing is added (keys of\n"
	  "                    standard input: those before the batch that would)\n"
	  "  -f, --file FILE   one key per line ('-': standard input); \"\\n\" or\n"
	  "                    \"\\r\\n\" ends a line; sent in batches of thousands;\n"
	  "                    repeatable: the files are read in order\n"
	  "      --skip-empty  skip empty lines instead of stopping at them\n"
	  "      --ipv4        keys are IPv4 addresses or netblocks (A.B.C.D/LEN);\n"
	  "                    a file is a feed: '#' and ';' comments, blank lines\n"
	  "                    and ipset save lines are fine\n"
	  "      --ipv6        the same for IPv6\n"
	  "                    A line FIRST-LAST is a range of addresses, as ipset\n"
	  "                    takes it, stored as the fewest netblocks that hold\n"
	  "                    it (192.0.2.0-192.0.3.255: 192.0.2.0/23)\n"
	  "      --skip-invalid  with --ipv4/--ipv6 -f: send the good entries of a\n"
	  "                    feed with bad lines, naming the bad ones\n"
	  "      --country CC  with --ipv4/--ipv6: lines FIRST,LAST,CC of\n"
	  "                    tor-geoipdb (/usr/share/tor/geoip: IPv4 addresses\n"
	  "                    as integers; geoip6) are ranges, those of country CC\n"
	  "                    taken, the others skipped; without it such a line\n"
	  "                    is a bad line\n"
	  "      --geoip FILE  -f FILE, a tor-geoipdb file: needs --country\n"
	  "      --mask-host-bits  with --ipv4/--ipv6: take 203.0.113.9/24 as\n"
	  "                    203.0.113.0/24 instead of refusing it\n"
	  "      --allow-short-prefixes  with --ipv4/--ipv6: take netblocks\n"
	  "                    shorter than /" FEED_SHORT_PREFIX_STR " (each holds more than 1/256 of all\n"
	  "                    addresses, and all of them would test present);\n"
	  "                    /0 is refused always, as ipset refuses it\n"
	  "  -v, --verbose     print a summary (keys, time, rate) on stderr\n"
	  "Keys on the command line are all checked first: one that is not a key\n"
	  "(empty; with --ipv4/--ipv6 not an address or netblock, blank and '#'\n"
	  "included) refuses the command and nothing is added.\n"
	  "In a file of strings, a bad line (empty, over " BLOOM_KEY_MAX_STR " bytes) stops the\n"
	  "command: the keys before it are added, none after. A feed of addresses\n"
	  "(--ipv4/--ipv6) is read and checked whole first: a bad line refuses it\n"
	  "and nothing is added (unless --skip-invalid).\n" },
	{ "test", cmd_test,
	  "test NAME [--ipv4|--ipv6] [--allow-short-prefixes] [-q] KEY...\n"
	  "       test NAME [--ipv4|--ipv6] [--skip-empty] [--skip-invalid]\n"
	  "       [--mask-host-bits] [--allow-short-prefixes] [--absent] [-q] [-v]\n"
	  "       [--country CC] -f FILE | --geoip FILE --country CC",
	  "Asks filter NAME about keys.\n"
	  "With KEYs, prints \"KEY: may be present\" or \"KEY: absent\" for each.\n"
	  "With -f FILE, works as a filter: prints the lines that may be present\n"
	  "(with --absent: those definitely absent), in input order.\n"
	  "Either way exits 0 if every key may be present, 1 if any is definitely\n"
	  "absent (in a pipeline under 'set -o pipefail', allow for the 1).\n"
	  "  -f, --file FILE   one key per line ('-': standard input); repeatable:\n"
	  "                    the files are read in order, as grep -f does\n"
	  "      --absent      with -f: print the lines that are definitely absent\n"
	  "      --skip-empty  skip empty lines instead of stopping at them\n"
	  "      --ipv4/--ipv6 keys are addresses, as with add; --skip-invalid,\n"
	  "                    --mask-host-bits, --allow-short-prefixes, --country\n"
	  "                    and --geoip as add takes them\n"
	  "  -q, --quiet       print nothing, only set the exit status (keys or -f)\n"
	  "  -v, --verbose     print a summary (keys, time, rate) on stderr\n" },
	{ "del", cmd_del,
	  "del NAME [--ipv4|--ipv6] [--allow-short-prefixes] [--exist] KEY...\n"
	  "       del NAME [--ipv4|--ipv6] [--skip-empty] [--skip-invalid]\n"
	  "       [--mask-host-bits] [--allow-short-prefixes] [--exist] [-v]\n"
	  "       [--country CC] -f FILE | --geoip FILE --country CC",
	  "Deletes keys from filter NAME, which must be a counting, dleft or timed\n"
	  "filter\n"
	  "(needs CAP_NET_ADMIN). Prints \"KEY: not found\" for each command-line key\n"
	  "that was not in the filter, then \"NAME: removed R keys, M not found\".\n"
	  "Exits 0 if every key was found and removed, 1 if some key was not found.\n"
	  "Takes -f (--file), --skip-empty, --ipv4, --ipv6, --skip-invalid,\n"
	  "--mask-host-bits, --allow-short-prefixes, --country, --geoip and -v\n"
	  "(--verbose) as add does,\n"
	  "and refuses bad keys and lines as add does.\n"
	  "Warning: delete only keys you added. A key never added that the filter\n"
	  "takes for present (a false positive) is \"removed\" from what other keys\n"
	  "set, and some of those may then be reported absent (false negatives).\n"
	  "A key added twice must be deleted twice to go, but in a filter created\n"
	  "with --key-timeouts once (it is a set).\n"
	  "  -exist, --exist   exit 0 also when a key was not found (ipset's -exist)\n" },
	{ "info", cmd_info,
	  "info NAME [--json]",
	  "Prints the parameters and statistics of filter NAME, the fill ratio and\n"
	  "the false-positive rate estimated from it; for counting and dleft\n"
	  "filters also deletes, delete misses and saturated counters, for dleft\n"
	  "the insert failures, fingerprint bits and the load of each subtable;\n"
	  "for scalable filters each stage's capacity, rate, bits and count.\n"
	  "  -j, --json        as a JSON object\n" },
	{ "list", cmd_list,
	  "list [-n | --json]",
	  "Lists the filters: a table of name, type, key kind (KEYS), capacity,\n"
	  "count and memory.\n"
	  "  -n, --names-only  one name per line\n"
	  "  -j, --json        a JSON array of the objects 'info --json' prints\n" },
	{ "stats", cmd_stats,
	  "stats --prometheus",
	  "Prints the statistics of every filter of the network namespace, and the\n"
	  "module's memory used and limit, in Prometheus' text exposition format:\n"
	  "per filter, labelled with its name and type, its keys, capacity,\n"
	  "memory, estimated and asked false-positive rates, adds, queries and\n"
	  "hits, packets and BPF lookups and their hits; deletes for counting,\n"
	  "dleft and timed filters, expired keys for timed ones, stages and\n"
	  "generations for scalable and expiring ones. bloom-metrics.timer writes\n"
	  "it for prometheus-node-exporter. Without --prometheus it is refused:\n"
	  "list and info are the views for people.\n"
	  "  --prometheus      Prometheus' text format (the only one)\n" },
	{ "destroy", cmd_destroy,
	  "destroy NAME",
	  "Destroys filter NAME and frees its memory (needs CAP_NET_ADMIN).\n" },
	{ "save", cmd_save,
	  "save NAME FILE\n"
	  "       save --all DIR [--prune]",
	  "Writes filter NAME as a snapshot to FILE ('-': standard output), needs\n"
	  "CAP_NET_ADMIN. A file is written atomically (a temporary file, fsync,\n"
	  "rename) with mode 0600: a snapshot holds the filter's secret hash key.\n"
	  "A counting or dleft filter is saved as one point in time.\n"
	  "  -a, --all         every filter of this network namespace, each to\n"
	  "                    DIR/NAME.bloom (DIR is created with mode 0700 if\n"
	  "                    missing); no other file in DIR is touched\n"
	  "      --prune       with --all, when all were saved: also remove each\n"
	  "                    DIR/X.bloom that is a valid snapshot of a filter X\n"
	  "                    that no longer exists, so 'restore --all' does not\n"
	  "                    bring it back (use a directory per namespace)\n" },
	{ "restore", cmd_restore,
	  "restore FILE [--name NEW] [--replace]\n"
	  "       restore --all DIR [--replace]",
	  "Creates a filter from snapshot FILE ('-': standard input), named as in the\n"
	  "snapshot or NEW; needs CAP_NET_ADMIN. The file is checked completely\n"
	  "(checksums, sizes, every counter and cell) before the filter appears; a\n"
	  "bad file is refused with the reason and nothing is created or changed;\n"
	  "input that is not a snapshot is refused at once, and exactly the size\n"
	  "its header gives is read (a shorter or longer input is refused).\n"
	  "  -n, --name NEW    the restored filter's name\n"
	  "  -r, --replace     if a filter of that name exists, replace its contents\n"
	  "                    in one step (queries see the old or the new contents,\n"
	  "                    never neither; bound programs stay bound); it must be\n"
	  "                    of the snapshot's type. Else create it\n"
	  "  -a, --all         every DIR/*.bloom file, in name order; a filter that\n"
	  "                    exists already is kept (and reported) unless\n"
	  "                    --replace; a file that fails is reported, the others\n"
	  "                    are restored, and the exit status is 3; anything\n"
	  "                    but a regular file (FIFO, symbolic link) is skipped\n" },
	{ "merge", cmd_merge,
	  "merge DST SRC",
	  "Makes filter DST the union of DST and SRC: DST then answers \"may be\n"
	  "present\" for every key of either. The two need the same type, geometry\n"
	  "and hash key (create SRC with 'create SRC --like DST', or restore both\n"
	  "from one snapshot). Counting counters add up (and stay at 15 once\n"
	  "there); dleft filters cannot be merged. Two scalable filters merge\n"
	  "stage by stage when their parameters and hash key are the same (DST\n"
	  "first gets the stages it lacks). A refusal says which of type,\n"
	  "scalable or not, key kind, geometry (scalable: the stages' parameters)\n"
	  "or hash key differs.\n"
	  "DST and SRC must be two filters: the same name twice is a usage error\n"
	  "(exit 2), as for swap. Needs CAP_NET_ADMIN.\n" },
	{ "swap", cmd_swap,
	  "swap NAME1 NAME2",
	  "Exchanges the contents of two filters of the same type in one step, as\n"
	  "ipset's swap: keys, geometry, hash key and statistics change places; the\n"
	  "names and the programs bound to them stay. Replace a live filter without\n"
	  "a gap: fill or restore a new one, swap, destroy the old. The two must\n"
	  "be of one type, both scalable or neither, with keys of one kind (a\n"
	  "refusal says which differs), and two filters: the same name twice is a\n"
	  "usage error (exit 2), as for merge. Needs CAP_NET_ADMIN.\n" },
	{ "flush", cmd_flush,
	  "flush NAME",
	  "Removes every key of filter NAME; it keeps its name, geometry and hash\n"
	  "key, and its statistics restart from zero. Needs CAP_NET_ADMIN. Adds\n"
	  "running during the flush may be kept or not. A scalable filter goes\n"
	  "back to its first stage, empty, and the other stages' memory is freed\n"
	  "(the new first stage must fit under max_memory beside the old ones).\n" },
	{ "build", cmd_build,
	  "build FILE --name NAME [--type T] two of:\n"
	  "       --capacity N --fpp P --bits-per-key C --memory SIZE\n"
	  "       [--hashes K] [--scalable [--growth S] [--tightening R]]\n"
	  "       [--hash-key HEX32 | --hash-key-file F]\n"
	  "       [--hash siphash-1-3|siphash-2-4]\n"
	  "       [--ipv4|--ipv6 [--allow-short-prefixes]\n"
	  "       [--prefix-lengths LIST | --prefix-feed FILE [--lookups E]]]\n"
	  "       [--skip-empty] [--skip-invalid] [--country CC] [--threads N] [-v]\n"
	  "       -f KEYS",
	  "Builds a filter from a key file without the module, with the kernel's\n"
	  "own filter code on every CPU, and writes it to FILE as a snapshot\n"
	  "('-': standard output; a file is written atomically, mode 0600: it\n"
	  "holds the hash key). 'bloomctl restore FILE' loads it in one call.\n"
	  "  -n, --name NAME      the filter's name in the snapshot\n"
	  "  -t, --type T         standard (default), blocked, counting, dleft\n"
	  "SIZE is any two of these, as for create (calc shows what they give):\n"
	  "  -c, --capacity N     keys the filter is sized for\n"
	  "  -p, --fpp P          false-positive rate wanted at N keys (0.01 or 1%)\n"
	  "      --bits-per-key B bits (counting: counters) per key of capacity\n"
	  "  -M, --memory BYTES   the most the table may take (256Mi, 1G)\n"
	  "      --hashes K       standard, counting: a fixed number of hashes\n"
	  "      --scalable       a scalable filter, as create --scalable makes it\n"
	  "                       (standard, blocked; --capacity and --fpp only;\n"
	  "                       --growth S, --tightening R): its stages fill in\n"
	  "                       file order and grow as the module grows them\n"
	  "  -f, --file KEYS      one key per line ('-': standard input), as add -f\n"
	  "      --hash-key H     the 128-bit SipHash key as 32 hex digits\n"
	  "      --hash-key-file F  the key from a file: 32 hex digits or 16 bytes\n"
	  "                       (default: random). With the key of a kernel\n"
	  "                       filter of the same type and size, the bits are\n"
	  "                       exactly those 'bloomctl add -f' would set there\n"
	  "      --hash H         the keyed hash: siphash-1-3 (default, as create)\n"
	  "                       or siphash-2-4; the kernel filter's, for its bits\n"
	  "      --ipv4/--ipv6    a feed of addresses and netblocks, as add reads\n"
	  "                       it ('#' and ';' comments, ipset save lines); the\n"
	  "                       snapshot keeps the key kind and the lengths\n"
	  "      --allow-short-prefixes  with --ipv4/--ipv6: take netblocks\n"
	  "                       shorter than /" FEED_SHORT_PREFIX_STR ", as add does\n"	  "      --prefix-lengths LIST, --prefix-feed FILE, --lookups E  with\n"
	  "                       --ipv4/--ipv6: the netblock lengths, as create\n"
	  "                       takes them (a feed without --capacity gives it);\n"
	  "                       each netblock is stored as add stores it there,\n"
	  "                       and the restored filter keeps the lengths\n"
	  "      --skip-empty     skip empty lines instead of stopping at them\n"
	  "      --skip-invalid   with --ipv4/--ipv6: skip the bad lines of KEYS\n"
	  "                       and of --prefix-feed, naming them, as add does\n"
	  "      --country CC     with --ipv4/--ipv6: tor-geoipdb lines of KEYS and\n"
	  "                       of --prefix-feed, as add --country takes them\n"
	  "      --threads N      hashing threads (default: the online CPUs)\n"
	  "  -v, --verbose        print keys, time and rate on stderr\n"
	  "A bad line stops the command and nothing is written (unless\n"
	  "--skip-invalid).\n" },
	{ "inspect", cmd_inspect,
	  "inspect FILE [--json] [--check]",
	  "Shows what snapshot FILE ('-': standard input) holds, from its header\n"
	  "alone, without the module and without reading the payload: name, type,\n"
	  "key kind and netblock lengths, capacity, rate, geometry or stages, the\n"
	  "statistics when it was saved, and whether the file's size is the one\n"
	  "its header gives. A file that is no snapshot, or whose header is\n"
	  "damaged, exits 3 saying why.\n"
	  "  -j, --json        a JSON object instead (keys as 'info --json' names\n"
	  "                    them where they mean the same)\n"
	  "  -c, --check       read and check the whole file, as restore does\n" },
	{ "version", cmd_version,
	  "version [--json]",
	  "Prints bloomctl's and libbloom's versions, then the module's ABI\n"
	  "version, filter types, limits and memory use (without the module: the\n"
	  "first, then the error, exit status 3).\n" },
	{ "help", cmd_help,
	  "help [VERB]",
	  "Prints the overview, or the help of VERB.\n" },
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

int print_help(FILE *f, const char *name)
{
	const struct verb *v;
	size_t i;

	if (!name) {
		fputs("usage: bloomctl [--device PATH] VERB [OPTIONS] [ARGS]\n\n"
		      "Manages Bloom filters in kernel memory (/dev/bloom).\n\n", f);
		for (i = 0; i < NVERBS; i++)
			fprintf(f, "  bloomctl %s\n", verbs[i].synopsis);
		fputs("\nGlobal options:\n"
		      "  -d, --device PATH   the bloom device (default /dev/bloom)\n"
		      "  -V, --version       print bloomctl's version and exit\n"
		      "  -h, --help          print this help and exit\n\n"
		      "Exit status: 0 success; 1 test: a key is definitely absent,\n"
		      "del: a key was not found; 2 usage error; 3 the operation failed.\n"
		      "'bloomctl help VERB' for details; bloomctl(8) for everything.\n",
		      f);
		return 0;
	}
	v = find_verb(name);
	if (!v)
		return -1;
	fprintf(f, "usage: bloomctl %s\n\n%s", v->synopsis, v->help);
	return 0;
}

int cmd_help(const char *dev, int argc, char **argv)
{
	(void)dev;
	if (argc > 2)
		die_usage("help", "help takes at most one verb");
	if (print_help(stdout, argc == 2 ? argv[1] : NULL))
		die_usage(NULL, "no verb named '%s'", argv[1]);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	const struct verb *v;
	int i = 1;

	/* Every way out checks that the output was written (exit 3 if not). */
	atexit(close_stdout);
	/* Global options come before the verb; the verb parses the rest. */
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--device")) {
			if (i + 1 >= argc)
				die_usage(NULL, "option '%s' needs a path", argv[i]);
			dev = argv[i + 1];
			i += 2;
		} else if (!strncmp(argv[i], "--device=", 9)) {
			dev = argv[i] + 9;
			i++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_help(stdout, NULL);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			/* This program's version; 'bloomctl version' asks the
			 * module for its own. */
			printf("bloomctl %s (libbloom %s, bloom ioctl ABI %d)\n",
			       BLOOMCTL_VERSION, bloom_library_version(),
			       BLOOM_ABI_VERSION);
			return EXIT_OK;
		} else {
			die_usage(NULL, "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc) {
		print_help(stderr, NULL);
		return EXIT_USAGE;
	}
	v = find_verb(argv[i]);
	if (!v)
		die_usage(NULL, "unknown verb '%s'", argv[i]);
	/* Each verb runs getopt once, on its own argv; opterr=0: we word
	 * the errors ourselves. */
	opterr = 0;
	optind = 0;
	return v->run(dev, argc - i, argv + i);
}
