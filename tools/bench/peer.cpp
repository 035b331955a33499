// SPDX-License-Identifier: GPL-2.0
/*
 * bench-peer: our blocked filter (the core, libbloomcore.a, through its
 * API) against Boost.Bloom in one process on the same precomputed 64-bit
 * hashes, and the one-line floor (floor.c). Boost is a peer to measure
 * against: its headers are found at build time (Makefile: BOOST_BLOOM_DIR),
 * never copied here.
 *
 *  - bloom blocked: bloom_core_add_batch()/query_batch() over batches of
 *    --batch hashes, bloom_core_add_hash()/query_hash() one at a time;
 *  - block<uint64_t[8],K>: the same layout (K bits in one 512-bit block),
 *    given our filter's k and bit count, so the same memory;
 *  - block<uint64_t,K>, fast_multiblock32<K>: sized by Boost for p
 *    (capacity_for()); their measured FPR and bits per key stand beside
 *    their times, as they differ;
 *  - floor: one random cache line per key, prefetched as far ahead as the
 *    core's batches (floor.c).
 * Boost's hash functor passes our hash through (is_avalanching), so no
 * variant pays a hash in these figures. Batched Boost calls are its bulk
 * insert()/may_contain() over the same batches, its results written to a
 * bitmap as ours are.
 *
 * Then "one key at a time, hash included": every type of ours and Boost's
 * three, each key hashed by the core's bloom_core_hash() (SipHash-2-4)
 * before its add or query.
 *
 * In every round the variants take turns (rotating order) for each
 * operation; figures are the median and minimum of the rounds.
 *
 * usage: bench-peer [--small N] [--big N] [--p P] [--rounds R]
 *                   [--batch B] [--absent N] [--only in-cache|out-of-cache]
 *                   [--quick]
 * The Boost K are chosen for p = 0.01 (the default): at another p they are
 * not the best K, and the measured FPR shows it.
 */
#include <getopt.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <boost/bloom.hpp>

extern "C" {
#include "clock.h"
#include "floor.h"
#include "json.h"
#include "stats.h"
}
#include "peer_core.h"

namespace {

constexpr int set_present = 0, set_absent = 1;	/* keys.h's sets */

struct pass_hash {
	using is_avalanching = std::true_type;
	std::size_t operator()(std::uint64_t h) const { return h; }
};

/* K for p = 0.01: the fewest bits per key by Boost's own sizing. */
constexpr std::size_t k_block64 = 5, k_fmb32 = 7;

/* What is timed: one add or query pass over @n hashes or keys. */
struct variant {
	std::string name;
	uint64_t bits = 0, bytes = 0;
	uint32_t hashes = 0;
	bool is_filter = true;
	virtual ~variant() = default;
	virtual void clear() = 0;
	virtual uint64_t add_batch(const uint64_t *h, uint64_t n, uint32_t b) = 0;
	virtual uint64_t query_batch(const uint64_t *h, uint64_t n,
				     uint32_t b) = 0;
	virtual uint64_t add_single(const uint64_t *h, uint64_t n) = 0;
	virtual uint64_t query_single(const uint64_t *h, uint64_t n) = 0;
	/* hash included: keys first..first+n-1 of @set */
	virtual uint64_t add_keys(int set, uint64_t first, uint64_t n) = 0;
	virtual uint64_t query_keys(int set, uint64_t first, uint64_t n) = 0;
	/*
	 * Two writer threads, taking batches of @b in turn, each batch under
	 * one lock: how bloom.ko serialises the writers of a filter (its
	 * write lock, once a batch), and all a filter of Boost's allows.
	 */
	uint64_t add_batch_2w(const uint64_t *h, uint64_t n, uint32_t b)
	{
		std::mutex lock;
		auto writer = [&](uint64_t first) {
			for (uint64_t i = first * b; i < n; i += 2 * (uint64_t)b) {
				std::lock_guard<std::mutex> hold(lock);

				add_batch(h + i, n - i < b ? n - i : b, b);
			}
		};
		std::thread other(writer, 1);

		writer(0);
		other.join();
		return 0;
	}
};

struct ours : variant {
	peer_core *c;
	ours(uint32_t type, uint64_t n, double p)
	{
		c = peer_core_new(type, n, p);
		if (!c) {
			fprintf(stderr, "bench-peer: no memory for %s\n",
				peer_core_type_name(type));
			exit(1);
		}
		name = std::string("bloom ") + peer_core_type_name(type);
		bits = peer_core_bits(c);
		bytes = peer_core_bytes(c);
		hashes = peer_core_hashes(c);
	}
	~ours() override { peer_core_free(c); }
	void clear() override { peer_core_clear(c); }
	uint64_t add_batch(const uint64_t *h, uint64_t n, uint32_t b) override
	{
		return peer_core_add_batch(c, h, n, b);
	}
	uint64_t query_batch(const uint64_t *h, uint64_t n, uint32_t b) override
	{
		return peer_core_query_batch(c, h, n, b);
	}
	uint64_t add_single(const uint64_t *h, uint64_t n) override
	{
		return peer_core_add_single(c, h, n);
	}
	uint64_t query_single(const uint64_t *h, uint64_t n) override
	{
		return peer_core_query_single(c, h, n);
	}
	uint64_t add_keys(int set, uint64_t first, uint64_t n) override
	{
		return peer_core_add_keys(c, set, first, n);
	}
	uint64_t query_keys(int set, uint64_t first, uint64_t n) override
	{
		return peer_core_query_keys(c, set, first, n);
	}
};

template <class Subfilter>
struct boost_variant : variant {
	using filter = boost::bloom::filter<std::uint64_t, 1, Subfilter, 0,
					    pass_hash>;
	filter f;
	boost_variant(const char *label, uint64_t m) : f(m)
	{
		name = label;
		bits = f.capacity();
		bytes = bits / 8;
		hashes = Subfilter::k;
	}
	void clear() override { f.clear(); }
	uint64_t add_batch(const uint64_t *h, uint64_t n, uint32_t b) override
	{
		for (uint64_t i = 0; i < n; i += b)
			f.insert(h + i, h + i + (n - i < b ? n - i : b));
		return 0;
	}
	uint64_t query_batch(const uint64_t *h, uint64_t n, uint32_t b) override
	{
		static uint8_t results[65536 / 8];
		uint64_t hits = 0;

		for (uint64_t i = 0; i < n; i += b) {
			uint64_t m = n - i < b ? n - i : b, j = 0;

			f.may_contain(h + i, h + i + m,
				      [&](std::uint64_t, bool r) {
					      if (!(j & 7))
						      results[j >> 3] = 0;
					      results[j >> 3] |= r << (j & 7);
					      hits += r;
					      j++;
				      });
		}
		return hits;
	}
	uint64_t add_single(const uint64_t *h, uint64_t n) override
	{
		for (uint64_t i = 0; i < n; i++)
			f.insert(h[i]);
		return 0;
	}
	uint64_t query_single(const uint64_t *h, uint64_t n) override
	{
		uint64_t hits = 0;

		for (uint64_t i = 0; i < n; i++)
			hits += f.may_contain(h[i]);
		return hits;
	}
	uint64_t add_keys(int set, uint64_t first, uint64_t n) override
	{
		for (uint64_t i = first; i < first + n; i++)
			f.insert(peer_core_key_hash(set, i));
		return 0;
	}
	uint64_t query_keys(int set, uint64_t first, uint64_t n) override
	{
		uint64_t hits = 0;

		for (uint64_t i = first; i < first + n; i++)
			hits += f.may_contain(peer_core_key_hash(set, i));
		return hits;
	}
};

struct floor_variant : variant {
	floor_arr a;
	explicit floor_variant(uint64_t b)
	{
		if (floor_init(&a, b)) {
			fprintf(stderr, "bench-peer: no memory for the floor\n");
			exit(1);
		}
		name = "floor";
		bytes = floor_bytes(&a);
		bits = bytes * 8;
		hashes = 1;
		is_filter = false;
	}
	~floor_variant() override { floor_free(&a); }
	void clear() override { floor_clear(&a); }
	/* @op (floor_add_batch or floor_query_batch) over @n hashes, @b at a time. */
	template <typename Op>
	uint64_t floor_in_batches(const uint64_t *h, uint64_t n, uint32_t b,
				  Op op)
	{
		static uint8_t results[65536 / 8];
		uint64_t hits = 0;

		for (uint64_t i = 0; i < n; i += b)
			hits += op(&a, h + i, (uint32_t)(n - i < b ? n - i : b),
				   results);
		return hits;
	}
	uint64_t add_batch(const uint64_t *h, uint64_t n, uint32_t b) override
	{
		return floor_in_batches(h, n, b, floor_add_batch);
	}
	uint64_t query_batch(const uint64_t *h, uint64_t n, uint32_t b) override
	{
		return floor_in_batches(h, n, b, floor_query_batch);
	}
	uint64_t add_single(const uint64_t *h, uint64_t n) override
	{
		uint64_t hits = 0;

		for (uint64_t i = 0; i < n; i++)
			hits += floor_add(&a, h[i]);
		return hits;
	}
	uint64_t query_single(const uint64_t *h, uint64_t n) override
	{
		uint64_t hits = 0;

		for (uint64_t i = 0; i < n; i++)
			hits += floor_query(&a, h[i]);
		return hits;
	}
	uint64_t add_keys(int set, uint64_t first, uint64_t n) override
	{
		uint64_t hits = 0;

		for (uint64_t i = first; i < first + n; i++)
			hits += floor_add(&a, peer_core_key_hash(set, i));
		return hits;
	}
	uint64_t query_keys(int set, uint64_t first, uint64_t n) override
	{
		uint64_t hits = 0;

		for (uint64_t i = first; i < first + n; i++)
			hits += floor_query(&a, peer_core_key_hash(set, i));
		return hits;
	}
};

/* splitmix64: the hashes, uniform and the same for every variant. */
uint64_t next_hash(uint64_t &s)
{
	uint64_t z = (s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

volatile uint64_t sink;

enum op { ADD_BATCH, ADD_SINGLE, ADD_BATCH_2W, QP_BATCH, QP_SINGLE,
	  QA_BATCH, QA_SINGLE, NOPS };
const char *const op_names[NOPS] = {
	"add_batch", "add_single", "add_batch_2w", "query_present_batch",
	"query_present_single", "query_absent_batch", "query_absent_single",
};

struct plan {
	uint64_t n, absent, sample;
	uint32_t rounds, batch;
	double p;
	uint32_t hash_rounds;	/* rounds of the hash-included part */
	const char *label;
};

struct result {
	bench_stat ns[NOPS] = {};
	uint64_t fp = 0, false_neg = 0;
};

double per_key(uint64_t t0, uint64_t n)
{
	return (double)(bench_now_ns() - t0) / (double)n;
}

void emit_stat(const char *key, const bench_stat *s)
{
	json_obj(stdout, key);
	json_num(stdout, "median", bench_stat_median(s));
	json_num(stdout, "min", bench_stat_min(s));
	json_u64(stdout, "samples", s->n);
	json_end(stdout);
}

void emit_variant(const variant &v, const result &r, const plan &pl,
		  int nops, const char *const *names)
{
	json_obj(stdout, NULL);
	json_str(stdout, "name", v.name.c_str());
	json_u64(stdout, "bits", v.bits);
	json_u64(stdout, "bytes", v.bytes);
	json_u64(stdout, "hashes", v.hashes);
	json_num(stdout, "bits_per_key", (double)v.bits / (double)pl.n);
	if (v.is_filter) {
		json_u64(stdout, "false_positives", r.fp);
		json_num(stdout, "fpr", (double)r.fp / (double)pl.absent);
		json_u64(stdout, "false_negatives", r.false_neg);
	}
	json_obj(stdout, "ns_per_key");
	for (int o = 0; o < nops; o++)
		emit_stat(names[o], &r.ns[o]);
	json_end(stdout);
	json_end(stdout);
}

std::vector<std::unique_ptr<variant>> make_same_hash_variants(const plan &pl)
{
	using namespace boost::bloom;
	std::vector<std::unique_ptr<variant>> v;
	auto blk = std::make_unique<ours>(2, pl.n, pl.p);
	uint64_t m = blk->bits, bytes = blk->bytes;

	if (blk->hashes != 7)
		fprintf(stderr, "bench-peer: our k is %u, block<uint64_t[8],7> "
			"has 7 (p = %g)\n", blk->hashes, pl.p);
	v.push_back(std::move(blk));
	v.push_back(std::make_unique<boost_variant<block<std::uint64_t[8], 7>>>(
		"boost block<uint64_t[8],7>", m));
	v.push_back(std::make_unique<boost_variant<block<std::uint64_t,
						   k_block64>>>(
		"boost block<uint64_t,5>",
		filter<std::uint64_t, 1, block<std::uint64_t, k_block64>, 0,
		       pass_hash>::capacity_for(pl.n, pl.p)));
	v.push_back(std::make_unique<boost_variant<fast_multiblock32<k_fmb32>>>(
		"boost fast_multiblock32<7>",
		filter<std::uint64_t, 1, fast_multiblock32<k_fmb32>, 0,
		       pass_hash>::capacity_for(pl.n, pl.p)));
	v.push_back(std::make_unique<floor_variant>(bytes));
	return v;
}

/* Same precomputed hashes for every variant, hash cost excluded. */
void run_same_hashes(const plan &pl)
{
	auto v = make_same_hash_variants(pl);
	size_t nv = v.size();
	std::vector<result> res(nv);
	std::vector<uint64_t> hp(pl.n), ha(pl.absent);
	uint64_t s = 0x5eed, qp = pl.sample < pl.n ? pl.sample : pl.n;
	uint64_t qa = pl.sample < pl.absent ? pl.sample : pl.absent;

	for (auto &h : hp)
		h = next_hash(s);
	for (auto &h : ha)
		h = next_hash(s);
	fprintf(stderr, "bench-peer: %s, %llu keys, same hashes:", pl.label,
		(unsigned long long)pl.n);
	for (uint32_t r = 0; r < pl.rounds; r++) {
		int fill = r % 3;	/* ADD_BATCH, ADD_SINGLE, ADD_BATCH_2W */
		uint64_t op_ = (uint64_t)r * qp % (pl.n - qp + 1);
		uint64_t oa = (uint64_t)r * qa % (pl.absent - qa + 1);

		fprintf(stderr, " %u", r + 1);
		/* fill: batched, single and two writers take turns */
		for (size_t j = 0; j < nv; j++) {
			size_t i = (j + r) % nv;
			uint64_t t0;

			v[i]->clear();
			t0 = bench_now_ns();
			sink += fill == ADD_SINGLE ?
				v[i]->add_single(hp.data(), pl.n) :
				fill == ADD_BATCH_2W ?
				v[i]->add_batch_2w(hp.data(), pl.n, pl.batch) :
				v[i]->add_batch(hp.data(), pl.n, pl.batch);
			bench_stat_add(&res[i].ns[fill], per_key(t0, pl.n));
		}
		for (int o = QP_BATCH; o < NOPS; o++) {
			bool abs = o >= QA_BATCH, sgl = o == QP_SINGLE ||
							o == QA_SINGLE;
			const uint64_t *h = abs ? ha.data() + oa : hp.data() + op_;
			uint64_t cnt = abs ? qa : qp;

			for (size_t j = 0; j < nv; j++) {
				size_t i = (j + r + o) % nv;
				uint64_t t0 = bench_now_ns(), hits;

				hits = sgl ? v[i]->query_single(h, cnt) :
				       v[i]->query_batch(h, cnt, pl.batch);
				bench_stat_add(&res[i].ns[o], per_key(t0, cnt));
				if (!abs && v[i]->is_filter)
					res[i].false_neg += cnt - hits;
				sink += hits;
			}
		}
	}
	fprintf(stderr, " fpr...");
	for (size_t i = 0; i < nv; i++)
		if (v[i]->is_filter)
			res[i].fp = v[i]->query_batch(ha.data(), pl.absent,
						       pl.batch);
	fprintf(stderr, " done\n");
	json_obj(stdout, NULL);
	json_str(stdout, "size", pl.label);
	json_str(stdout, "kind", "same_hashes");
	json_u64(stdout, "keys", pl.n);
	json_num(stdout, "p", pl.p);
	json_u64(stdout, "batch", pl.batch);
	json_u64(stdout, "absent_keys", pl.absent);
	json_u64(stdout, "query_sample", qp);
	json_u64(stdout, "rounds", pl.rounds);
	json_arr(stdout, "variants");
	for (size_t i = 0; i < nv; i++)
		emit_variant(*v[i], res[i], pl, NOPS, op_names);
	json_end(stdout);
	json_end(stdout);
}

enum kop { K_ADD, K_QP, K_QA, NKOPS };
const char *const kop_names[NKOPS] = {
	"add_single", "query_present_single", "query_absent_single",
};

/* One key at a time, SipHash-2-4 of a 16-byte key included, every type. */
void run_with_hash(const plan &pl)
{
	using namespace boost::bloom;
	std::vector<std::unique_ptr<variant>> v;
	uint64_t qp = pl.sample < pl.n ? pl.sample : pl.n;
	uint64_t qa = pl.sample < pl.absent ? pl.sample : pl.absent;

	for (uint32_t t = 1; t <= 4; t++)
		v.push_back(std::make_unique<ours>(t, pl.n, pl.p));
	v.push_back(std::make_unique<boost_variant<block<std::uint64_t[8], 7>>>(
		"boost block<uint64_t[8],7>", v[1]->bits));
	v.push_back(std::make_unique<boost_variant<block<std::uint64_t,
						   k_block64>>>(
		"boost block<uint64_t,5>",
		filter<std::uint64_t, 1, block<std::uint64_t, k_block64>, 0,
		       pass_hash>::capacity_for(pl.n, pl.p)));
	v.push_back(std::make_unique<boost_variant<fast_multiblock32<k_fmb32>>>(
		"boost fast_multiblock32<7>",
		filter<std::uint64_t, 1, fast_multiblock32<k_fmb32>, 0,
		       pass_hash>::capacity_for(pl.n, pl.p)));
	size_t nv = v.size();
	std::vector<result> res(nv);

	fprintf(stderr, "bench-peer: %s, %llu keys, hash included:", pl.label,
		(unsigned long long)pl.n);
	for (uint32_t r = 0; r < pl.hash_rounds; r++) {
		fprintf(stderr, " %u", r + 1);
		for (size_t j = 0; j < nv; j++) {
			size_t i = (j + r) % nv;
			uint64_t t0;

			v[i]->clear();
			t0 = bench_now_ns();
			sink += v[i]->add_keys(set_present, 0, pl.n);
			bench_stat_add(&res[i].ns[K_ADD], per_key(t0, pl.n));
		}
		for (int o = K_QP; o < NKOPS; o++) {
			bool abs = o == K_QA;
			uint64_t cnt = abs ? qa : qp;
			uint64_t first = (uint64_t)r * cnt %
				((abs ? pl.absent : pl.n) - cnt + 1);

			for (size_t j = 0; j < nv; j++) {
				size_t i = (j + r + o) % nv;
				uint64_t t0 = bench_now_ns(), hits;

				hits = v[i]->query_keys(abs ? set_absent :
							set_present, first, cnt);
				bench_stat_add(&res[i].ns[o], per_key(t0, cnt));
				if (!abs)
					res[i].false_neg += cnt - hits;
				else if (!r)
					res[i].fp = hits;
				sink += hits;
			}
		}
	}
	fprintf(stderr, " done\n");
	plan fp_plan = pl;

	fp_plan.absent = qa;	/* the FPR here: the first absent sample */
	json_obj(stdout, NULL);
	json_str(stdout, "size", pl.label);
	json_str(stdout, "kind", "hash_included");
	json_u64(stdout, "keys", pl.n);
	json_num(stdout, "p", pl.p);
	json_u64(stdout, "absent_keys", qa);
	json_u64(stdout, "query_sample", qp);
	json_u64(stdout, "rounds", pl.hash_rounds);
	json_arr(stdout, "variants");
	for (size_t i = 0; i < nv; i++)
		emit_variant(*v[i], res[i], fp_plan, NKOPS, kop_names);
	json_end(stdout);
	json_end(stdout);
}

} /* namespace */

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "small", required_argument, NULL, 's' },
		{ "big", required_argument, NULL, 'b' },
		{ "p", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'B' },
		{ "absent", required_argument, NULL, 'a' },
		{ "only", required_argument, NULL, 'o' },
		{ "quick", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	plan small = { 200000, 1000000, 200000, 11, 1024, 0.01, 5, "in-cache" };
	plan big = { 50000000, 10000000, 2000000, 5, 1024, 0.01, 3,
		     "out-of-cache" };
	int sizes = 3, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': small.n = strtoull(optarg, NULL, 0); break;
		case 'b': big.n = strtoull(optarg, NULL, 0); break;
		case 'p': small.p = big.p = strtod(optarg, NULL); break;
		case 'r':
			small.rounds = big.rounds = atoi(optarg);
			small.hash_rounds = big.hash_rounds =
				small.rounds < 3 ? small.rounds : 3;
			break;
		case 'B': small.batch = big.batch = atoi(optarg); break;
		case 'a': small.absent = big.absent = strtoull(optarg, NULL, 0);
			break;
		case 'o': sizes = strcmp(optarg, "in-cache") ? 2 : 1; break;
		case 'q':	/* a smoke test of the harness */
			small.rounds = big.rounds = 3;
			small.hash_rounds = big.hash_rounds = 1;
			big.n = 2000000;
			big.sample = 500000;
			small.absent = big.absent = 500000;
			break;
		default:
			fprintf(stderr, "usage: %s [--small N] [--big N] [--p P] [--rounds R] [--batch B] [--absent N] [--only in-cache|out-of-cache] [--quick]\n",
				argv[0]);
			return 2;
		}
	}
	if (small.n < 1000 || big.n < 1000 || small.absent < 1000 ||
	    small.batch < 1 || small.batch > 65536 || small.rounds < 1 ||
	    small.rounds > BENCH_MAX_SAMPLES || !(small.p > 0 && small.p < 0.5)) {
		fprintf(stderr, "bench-peer: sizes >= 1000, batch 1..65536, rounds 1..%d, p in (0, 0.5)\n",
			BENCH_MAX_SAMPLES);
		return 2;
	}
	if (small.sample > small.n)
		small.sample = small.n;

	json_obj(stdout, NULL);
	json_str(stdout, "compiler", "g++ " __VERSION__);
	json_arr(stdout, "configs");
	for (int s = 0; s < 2; s++) {
		if (!(sizes & (1 << s)))
			continue;
		run_same_hashes(s ? big : small);
		run_with_hash(s ? big : small);
	}
	json_end(stdout);
	json_end(stdout);
	return 0;
}
