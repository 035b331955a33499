/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * bloom: Bloom filters in kernel memory, behind the misc device /dev/bloom.
 *
 * This header is the specification of the ioctl ABI.
 *
 * Model
 * -----
 * The module keeps named filters. A name is 1..31 printable ASCII characters
 * other than space and '/' (0x21..0x7e without 0x2f: a name is a sysfs
 * directory and a word in listings), and not "." or "..". It travels in a 32-byte
 * field, NUL-terminated, and every byte after the terminating NUL must be zero.
 *
 * An open file descriptor of /dev/bloom is either unbound or bound to exactly
 * one filter (BLOOM_IOC_BIND, or BLOOM_IOC_CREATE with BLOOM_CREATE_F_BIND).
 * Keys are added, queried and deleted through a bound descriptor, so the hot
 * path never looks a name up. A descriptor stays bound until it is closed.
 * Destroying a filter removes its name and gives its memory back at once
 * (the memory itself is freed after an RCU grace period), whether or not
 * descriptors are still bound to it: ADD, QUERY, DELETE and INFO of the
 * bound filter through them fail with ESTALE from then on (BIND fails with
 * EBUSY: the descriptor stays bound; VERSION, LIST and calls naming another
 * filter work as on any descriptor). A batch that overlaps the destroy of
 * its filter fails with ESTALE; the keys it had added went with the filter.
 *
 * Keys are byte strings of 1..BLOOM_KEY_MAX bytes. Fixed-size keys (an IPv4
 * address is 4 bytes, an IPv6 address 16, both in network byte order) can be
 * packed densely; variable-size keys come with an array of lengths.
 *
 * Calling convention
 * ------------------
 * Every command is _IO(BLOOM_IOC_MAGIC, nr) and takes a pointer to a struct
 * whose first member is "__u32 size", set by the caller to the size of the
 * struct it was compiled with, and whose second member is "__u32 flags".
 * A size smaller than the struct's first version (ABI version 1, this
 * header's) is EINVAL; a size over 4096 bytes is E2BIG, unread. A larger size
 * is accepted if every byte the kernel does not know is zero (else E2BIG), so
 * binaries built against a newer header work on an older module as long as
 * they do not use what it lacks, and old binaries keep working on new modules.
 * Every flag bit not defined here, and every field named "reserved", must be
 * zero (else EINVAL). Output structs are zeroed before they are filled.
 * A successful command returns 0.
 *
 * Sizing
 * ------
 * Filters are created from a capacity n (keys expected) and a false-positive
 * rate p, given in parts per billion (fpp_ppb: 10000000 is p = 0.01). The
 * kernel sizes the filter itself, in integer arithmetic:
 *   standard: the fewest bits m with (1 - (1 - k/m)^n)^k <= p, an upper
 *             bound of the exact false-positive rate (every key sets k
 *             distinct bits), for the k within 2 of -log2 p that needs
 *             the fewest; for large n that is n * -log2(p) / ln 2 bits,
 *             the optimum, and k near -log2 p; m is not rounded to a
 *             power of two, but is at least 64 (one word).
 *   counting: the standard geometry, each bit a 4-bit counter (4x the
 *             memory).
 *   d-left:   4 subtables of buckets of 8 cells, each cell a fingerprint
 *             and a 2-bit counter; cell width (8 to 64 bits, packed whole
 *             into 64-bit words), fingerprint bits and the number of
 *             buckets are chosen so that the rate is at most p at capacity
 *             with the fewest bits (Bonomi et al. 2006). bits is the
 *             table's size in bits, hashes the number of subtables.
 *   blocked:  all k bits of a key lie in one 512-bit (64-byte) block, one
 *             cache line. Packing costs accuracy, so k and m come from a table
 *             computed from the exact false-positive rate of a blocked filter
 *             (Putze, Sanders, Singler 2007); m is a multiple of 512.
 * With BLOOM_CREATE_F_GEOMETRY the caller gives m and k itself (to restore a
 * snapshot or to reproduce a peer); capacity and fpp_ppb are then recorded
 * as given. A d-left filter cannot be created that way (EOPNOTSUPP).
 *
 * With BLOOM_CREATE_F_SIZE the kernel sizes from any two of: capacity n,
 * fpp_ppb p, bits_per_key_milli c (bits of table per key of capacity, in
 * thousandths: a counting filter's table has 4 bits per counter) and
 * memory_bytes M (the most the table may take: the bit array, counters or
 * cells, in whole 64-byte lines; info's memory_bytes adds the filter's
 * fixed overhead), with hashes a fixed k (standard, counting) or 0:
 *   n, p:  as above (a fixed k: the fewest bits that keep p with that k);
 *   M, p:  the largest n whose filter fits in M;
 *   n, c and n, M:  the table takes c * n bits (M bytes) in the type's unit
 *          (bits, counters, 512-bit blocks, bucket rows of the cell width
 *          with the lower rate) and fpp_ppb is the rate that gives at
 *          capacity, rounded up (at least 1);
 *   M, c:  n = 8 M / c, then as n, M.
 * p and c together are EINVAL (each says the other). What cannot be
 * honoured, a rate over 0.5 or a d-left load over 6 of 8 cells or less
 * than one key, is ERANGE. The geometry and the capacity and rate recorded
 * are what bloom_size() in the core computes; libbloom's bloom_size() and
 * "bloomctl calc" run the same code.
 *
 * Scalable filters
 * ----------------
 * With BLOOM_CREATE_F_SCALABLE a standard or blocked filter grows with its
 * keys (Almeida, Baquero, Preguica, Hutchison 2007). It is a chain of
 * stages of its type: stage i holds capacity * s^i keys at the rate
 * P * (1 - r) * r^i, where P is fpp_ppb, s is @growth (an integer,
 * BLOOM_GROWTH_MIN..BLOOM_GROWTH_MAX, default 2) and r is
 * @tightening_ppm / 10^6 (BLOOM_TIGHTENING_PPM_MIN..MAX, default 0.85).
 * Each stage is sized as a filter of its own (see Sizing), its rate rounded
 * down to whole ppb, so the compound false-positive rate stays under P
 * however far the filter grows. Bounds: s under 2 makes long chains (a
 * query checks every stage), s over 16 leaves the newest stage mostly
 * empty memory; r under 0.5 spends many bits per key in later stages,
 * r over 0.95 leaves stage 0 under 5% of P.
 * ADD checks every stage first (a key present in any stage is not added
 * again and counts as "was present"), then sets the key's bits in the
 * newest stage. A stage takes at most its capacity of new keys; the add
 * that finds it full allocates the next stage, outside anything queries
 * wait for, and publishes it; queries never wait for growth and never
 * miss a key whose ADD returned. A filter has at most
 * BLOOM_SCALE_STAGES_MAX stages. When the next stage cannot be made, ADD
 * fails: ENOSPC (BLOOM_SCALE_STAGES_MAX reached, or the next stage would
 * hold over BLOOM_CAPACITY_MAX keys, be over BLOOM_BITS_MAX bits, or have
 * a rate under 1 ppb), EDQUOT (max_memory) or ENOMEM (the kernel or the
 * caller's memory cgroup refused the memory). Then the first @out_done keys
 * of the batch were added and stay, with their result bits, and the other
 * keys were not; every key added before stays present. Counting and
 * d-left filters cannot be scalable (EOPNOTSUPP), nor can a filter created
 * with BLOOM_CREATE_F_GEOMETRY or BLOOM_CREATE_F_SIZE (EINVAL: a scalable
 * filter is given by capacity and fpp_ppb). INFO reports the stages, their
 * total bits and the compound estimated rate; BLOOM_IOC_STAGES each
 * stage's geometry and fill. SAVE and RESTORE keep the stages (the
 * snapshot's STAGES feature). FLUSH of a scalable filter starts it again
 * from an empty first stage (EDQUOT or ENOMEM, and nothing changed, when
 * that stage cannot be allocated beside the old ones, which go once it is
 * published). MERGE of two scalable filters with the same parameters and
 * hash key merges them stage by stage, first giving the destination the
 * stages it lacks (EINVAL when they differ; EOPNOTSUPP for a scalable
 * filter with one that is not); BLOOM_CREATE_F_LIKE naming a scalable
 * filter makes an empty chain of the same parameters and hash key, which
 * merges with it. SWAP of a scalable filter with one that is not,
 * and a RESTORE with BLOOM_RESTORE_F_REPLACE of a scalable snapshot onto a
 * filter that is not scalable or the other way round, are EINVAL.
 *
 * Expiring filters
 * ----------------
 * With BLOOM_CREATE_F_TIMEOUT a standard or blocked filter forgets its
 * keys: a key added at time t tests present until at least t + timeout
 * (no false negative in that window, whatever the load); it is gone (tests
 * present only as a false positive) after t + timeout x (1 + 1/(G - 1))
 * at most; the rate stays within fpp_ppb for up to @capacity keys added
 * per timeout. Adding more than that per timeout raises the rate and never
 * loses a key (INFO's estimated_fpp_ppb shows it). Each generation holds
 * a period's share, capacity / (G - 1) keys: keys that come in bursts
 * (more than that share in one period) raise the rate the same way until
 * their generation is cleared. Adding a key again starts its timeout
 * again.
 * The filter is G generations (@generations, BLOOM_GENERATIONS_MIN..MAX,
 * 0 for BLOOM_GENERATIONS_DEFAULT), each a filter of its type sized (see
 * Sizing) for ceil(capacity / (G - 1)) keys at floor(fpp_ppb / G) ppb.
 * ADD sets a key's bits in the newest generation only (its result bit:
 * every bit was set there already); QUERY and the firewall match test
 * every generation. Every timeout / (G - 1) (rounded up to a whole
 * nanosecond), off every packet and ioctl path, the module clears the
 * oldest generation and makes it the newest; a query never waits for
 * that and never sees a half-cleared generation. A generation stops taking
 * adds at a rotation and is cleared no earlier than timeout after the
 * last add it can hold, so a late timer or a loaded machine only lengthens
 * lives (and, for as long as a rotation is late, lets the newest
 * generation take more than its share). Times are CLOCK_BOOTTIME: time
 * asleep counts.
 * @timeout_ms is BLOOM_TIMEOUT_MS_MIN..BLOOM_TIMEOUT_MS_MAX. A counting,
 * d-left or scalable filter, explicit geometry (BLOOM_CREATE_F_GEOMETRY),
 * BLOOM_CREATE_F_SIZE, a timeout out of range, G out of range and a rate
 * under G ppb are EINVAL, as are @timeout_ms or @generations without the
 * flag. INFO reports @generations, @timeout_ms and @next_rotation_ms;
 * @bits, @bits_set and @count are the sums over the generations (a key
 * added again in a later generation counts again), @capacity and @fpp_ppb
 * as created. BLOOM_IOC_STAGES lists the generations, oldest first, each
 * with its age. FLUSH clears every generation and keeps the schedule;
 * MERGE takes two expiring filters of the same type, geometry, hash key,
 * G and timeout (create the other with BLOOM_CREATE_F_LIKE, which copies
 * G and the timeout too) and ORs each generation into the one of the same
 * age, the later of the two expiries kept; SWAP exchanges two expiring
 * filters (an expiring with a filter that is not is EINVAL, so is a
 * replacing RESTORE between the two kinds). SAVE writes the generations
 * and their times (the snapshot's GENERATIONS feature, relative to the
 * save, whose time is wall-clock time); RESTORE clears what expired since
 * the save before the filter is seen, so lifetimes hold across a reboot.
 *
 * Keys with their own timeouts
 * ----------------------------
 * A filter of type BLOOM_TYPE_TIMED is a set of keys that each live until
 * their own timeout, and can be deleted: fail2ban's, CrowdSec's and
 * sshguard's bans, which ipset keeps with "hash:ip timeout". Its table is
 * the d-left table (see Sizing: the same shape and load rule), each cell a
 * fingerprint, a tag and the key's expiry instead of a counter. Create it
 * from capacity and fpp_ppb (or BLOOM_CREATE_F_SIZE) with @key_timeout_s,
 * the timeout of keys added without one (0: they never expire), and
 * @key_timeout_max_s, the largest timeout it takes (0:
 * BLOOM_KEY_TIMEOUT_MAX); both are seconds, 0..BLOOM_KEY_TIMEOUT_MAX,
 * @key_timeout_s at most the largest (EINVAL otherwise, and for either on
 * another type).
 * ADD with BLOOM_BATCH_F_TIMEOUT gives the keys a timeout in seconds: key
 * i's is timeouts[i] when @timeouts is set, else @timeout_s; each 0 (no
 * expiry) or 1..@key_timeout_max_s (EINVAL otherwise; the flag on another
 * type is EOPNOTSUPP). A key added with timeout T tests present until at
 * least T after the ADD returned, and absent (but for false positives)
 * from T + r + 1 s after it, r = the largest power of two that is at most
 * max(1 s, T / 16): expiries are kept in units of r. Adding a key that is
 * in the filter keeps the later of its two expiries (its result bit is
 * set: "present already"); DELETE removes it whatever its expiry and
 * however often it was added (removed, or not found; never pinned). An
 * expired key is absent at once for QUERY, the firewall match and the
 * kfuncs (times are CLOCK_BOOTTIME seconds); its cell is reclaimed by the
 * next ADD or DELETE that looks at its bucket and by the module's sweep
 * of the whole table, a bounded piece at a time, every few seconds.
 * Two keys whose fingerprints and tags both agree are one key to the
 * filter: a DELETE of one removes the other. That needs a false positive
 * and t more bits to agree (p x 2^-t at the add, t = @tag_bits of INFO;
 * Documentation/bloom.rst has the figures). A full candidate bucket set
 * is ENOSPC, as for d-left. SAVE keeps every live key's expiry as a
 * wall-clock time; RESTORE drops the keys that expired meanwhile and
 * refuses (EBADMSG) an expiry beyond the save's time plus the filter's
 * largest timeout. MERGE is EOPNOTSUPP; FLUSH, SWAP, netblocks and key
 * kinds are as for d-left.
 *
 * Deleting
 * --------
 * Counting, d-left and timed filters can delete keys (BLOOM_IOC_DELETE).
 * Deleting a
 * key that was never added is the caller's error: where the filter can tell
 * (a counter of the key is zero, or no cell holds its fingerprint) nothing
 * changes and the key is counted in delete_misses, but where it cannot (the
 * key is a false positive) the delete removes what other keys set, and a
 * later query of one of those keys may wrongly answer "absent". A counter
 * that reached its maximum (15 for counting, 3 for a d-left cell) stays
 * there for good: decrementing it could make a key that is present absent.
 *
 * So a DELETE tells, per key, one of three things: removed (found, one copy
 * taken out), not found (nothing changed), or pinned: found, but a
 * saturated counter keeps it. A counting key is pinned when one of its
 * counters is at 15 and none of its counters reached 0 in this delete (the
 * others were decremented); a d-left key when its cell's count is 3
 * (nothing changes). A pinned key still tests present after the delete, and
 * deleting it again cannot remove it for good: only a new filter forgets
 * it. The counts come back in out_hits (removed) and out_pinned, the keys
 * in the results bitmap (removed) and, with BLOOM_BATCH_F_PINNED, in a
 * second bitmap (pinned).
 * A d-left insert that finds all 4 candidate buckets full fails with ENOSPC,
 * as an ADD to a scalable filter that cannot grow does: the batch stops at
 * that key, the keys before it stay added, with their result bits, and
 * out_done says how many they are; that key and those after it are not
 * added. A caller resumes from key out_done once there is room (a larger
 * filter, or keys deleted).
 *
 * Hashing
 * -------
 * Each filter has a 128-bit secret hash key, random unless the creator passes
 * one (BLOOM_CREATE_F_HASH_KEY). A key is hashed once with SipHash-2-4 under
 * it, and the k bit positions are derived from that one 64-bit hash (how is
 * in Documentation/bloom.rst; it is part of the format of a filter's bits).
 * Without the secret nobody can predict which bits a key sets, so nobody
 * can craft false positives or saturate the filter on purpose.
 *
 * Results
 * -------
 * A batch reports one bit per key in a bitmap of (nkeys + 7) / 8 bytes:
 * bit (i % 8) of byte (i / 8) is key i. For QUERY a set bit means "may be
 * present" and a clear bit "definitely absent". For ADD a set bit means every
 * bit of the key was already set ("was probably present already"). For
 * DELETE a set bit means the key was found and removed (not pinned: see
 * Deleting); with BLOOM_BATCH_F_PINNED a second bitmap of the same size
 * has the bits of the pinned keys set.
 *
 * Netblocks
 * ---------
 * An IPv4 or IPv6 netblock (a prefix, A.B.C.D/L) shorter than an address
 * is the key of its address with every host bit zero, in network byte
 * order, followed by one byte, L: 5 bytes for IPv4 (L 0..31), 17 for IPv6
 * (L 0..127). A /32 or /128 is the address, 4 or 16 bytes. ADD and DELETE
 * with BLOOM_BATCH_F_NET take such keys (key_size 4, 5, 16 or 17, or
 * lengths of those sizes; all of one family) and refuse any other, a host
 * bit set under the mask included (EINVAL); the filter counts the keys of
 * each length (a DELETE that removed one uncounts it). QUERY with
 * BLOOM_BATCH_F_NET takes addresses (and netblocks): a key is "may be
 * present" when the address itself tests present or, for each netblock
 * length the filter holds that is at most the key's, longest first, its
 * netblock does. An address absent from the filter meets L tests, L =
 * 1 + the lengths present, so its false-positive rate is up to L times
 * the filter's (INFO's address_fpp_ppb): size the filter for p / L.
 * The firewall match looks packet addresses up the same way.
 *
 * Key kinds
 * ---------
 * A filter records what its keys are (enum bloom_key_kind): given at CREATE
 * (@keys), or set by the first ADD with BLOOM_BATCH_F_NET (ipv4 or ipv6
 * from the keys' sizes); SAVE and RESTORE keep it. Once set it does not
 * change. On a filter of kind ipv4 or ipv6 every batch is read as with
 * BLOOM_BATCH_F_NET, and a key of the other family or a string is
 * refused with EPROTOTYPE; on a filter of kind strings a batch with
 * BLOOM_BATCH_F_NET is EPROTOTYPE; so is a firewall rule of one family
 * naming a filter of the other, or of strings. A filter of kind unknown
 * takes any key, as filters did before kinds. SWAP, and a replacing
 * RESTORE, of two known kinds that differ is EPROTOTYPE.
 *
 * Privilege
 * ---------
 * VERSION, BIND, INFO, LIST and QUERY need only an open descriptor, in any
 * mode. CREATE, DESTROY, ADD and DELETE change filters: they need a
 * descriptor opened for writing (O_RDWR or O_WRONLY; EBADF otherwise, checked
 * first) and CAP_NET_ADMIN in the user namespace that owns the descriptor's
 * network namespace (EPERM otherwise, checked at each call). Who may
 * open /dev/bloom at all is the device node's mode (see "Security model" in
 * Documentation/bloom.rst).
 * RESTORE, MERGE, SWAP and FLUSH change filters as CREATE does: a descriptor
 * opened for writing and CAP_NET_ADMIN. SAVE needs CAP_NET_ADMIN (a
 * snapshot holds the filter's secret hash key), in any mode.
 *
 * Snapshots
 * ---------
 * BLOOM_IOC_SAVE writes a filter as a snapshot into a user buffer;
 * BLOOM_IOC_RESTORE makes a filter from one. The format is specified in
 * Documentation/snapshot.rst: a header (magic BLOOM_SNAP_MAGIC, format
 * version BLOOM_SNAP_VERSION, header size, feature flags, the id of the hash
 * and position scheme, type, geometry, statistics, hash key, xxh64 of header
 * and payload) and the filter's storage as its payload, little-endian.
 * A save is a consistent point in time: it copies the filter into kernel
 * memory under the filter's write lock, so every ADD or DELETE of a
 * counting or d-left filter that returned before the save is in it and
 * none is in it by half; of a standard or
 * blocked filter (whose adds take no lock), every add that returned before
 * the save began is in it, and one running during the save may be in it in
 * part (bits are only ever set, so that costs no false negative, but the
 * key should be added again after a restore). That copy goes out to @buf
 * after the lock is dropped (a slow or stalled buffer holds up no writer);
 * while the call runs it counts against max_memory (EDQUOT) and the
 * caller's memory cgroup (ENOMEM), as a filter of that size would. A
 * restore builds the filter
 * aside, reading the payload from user memory a chunk at a time, checks
 * everything (checksums, sizes against the limits, every counter and cell,
 * statistics recounted, never trusted) and only then gives it its name; a
 * refused snapshot leaves nothing behind. Restore obeys create's rules:
 * CAP_NET_ADMIN, max_memory (EDQUOT), the caller's memory cgroup (ENOMEM).
 *
 * BLOOM_IOC_MERGE makes a filter the union of itself and another of the same
 * type, geometry and hash key (create the other with BLOOM_CREATE_F_LIKE):
 * bitwise OR for standard and blocked filters, a saturating add of counters
 * for counting filters (a counter stays at 15); d-left tables cannot be
 * merged (EOPNOTSUPP). Queries running meanwhile never miss a key of the
 * destination. BLOOM_IOC_FLUSH removes every key and keeps the filter, its
 * geometry and hash key; its statistics restart from zero. BLOOM_IOC_SWAP
 * exchanges the contents (geometry, hash key, keys, statistics) of two
 * filters of the same type (EINVAL otherwise) as one step, ipset's swap:
 * each name and every descriptor bound to it stays with its filter, and a
 * query sees either contents, never a mix. With BLOOM_RESTORE_F_REPLACE a
 * restore replaces an existing filter's contents the same way.
 *
 * Network namespaces
 * ------------------
 * Every network namespace has its own filters, as it has its own ipset sets.
 * A descriptor acts in the network namespace of the process that opened it,
 * for its whole life: CREATE, DESTROY, BIND, INFO and LIST name and see only
 * that namespace's filters, whoever uses the descriptor later. Root of a user
 * namespace that owns a network namespace manages that namespace's filters.
 * When a namespace goes away its filters are destroyed and their memory is
 * freed (an open descriptor keeps its namespace alive). A firewall rule can
 * only name a filter of the rule's namespace. The module's memory limit
 * (max_memory) is shared by all namespaces; a namespace other than the
 * initial one may take at most max_memory_per_netns of it and hold at most
 * max_filters_per_netns filters (module parameters), and those namespaces
 * together leave the initial one min(max_memory_per_netns,
 * max_memory / 2).
 *
 * BPF programs
 * ------------
 * Every filter has an id (struct bloom_info's @id, sysfs "id"): a number
 * from 1, unique in its network namespace while the filter exists, handed
 * out in increasing order (a destroyed filter's id is not given to the
 * next filter created). SWAP and RESTORE with BLOOM_RESTORE_F_REPLACE
 * change what a filter holds, not its id. XDP and tc (SCHED_CLS) programs
 * look keys up by id with kernel functions (kfuncs) of the module,
 * declared for BPF C in <bloom/bpf.h>:
 *
 *   int bpf_bloom_xdp_query(struct xdp_md *ctx, __u32 filter_id,
 *                           const void *key, __u32 key__sz);
 *   int bpf_bloom_skb_query(struct __sk_buff *skb, __u32 filter_id,
 *                           const void *key, __u32 key__sz);
 *   int bpf_bloom_xdp_lookup_addr(struct xdp_md *ctx, __u32 filter_id,
 *                                 const void *addr, __u32 addr__sz);
 *   int bpf_bloom_skb_lookup_addr(struct __sk_buff *skb, __u32 filter_id,
 *                                 const void *addr, __u32 addr__sz);
 *
 * They return 1 when the key may be present, 0 when it is absent, -ENOENT
 * when the network namespace of the packet's device (a tc packet without
 * one: its socket's) has no filter of that id, -EINVAL for a key size of 0
 * or above BLOOM_KEY_MAX, or an address size other than 4 (IPv4) or 16
 * (IPv6). An address is looked up as the firewall match does: itself and
 * every netblock length the filter holds (see Netblocks). The calls take
 * no lock and allocate nothing; the verifier checks that the key's bytes
 * are the program's to read (packet data, stack or a map value). They
 * count in the filter's @bpf_calls and @bpf_hits. A program keeps working
 * when its filter is destroyed (then -ENOENT), and keeps bloom.ko loaded
 * while it is. The kfuncs exist when the module was built with BTF; the
 * module logs it at load when it was not.
 *
 * Errors (errno after ioctl() returns -1)
 * ---------------------------------------
 *   ENOTTY     unknown command
 *   EINVAL     size smaller than the struct's first version; a flag or
 *              reserved field that is not zero; a malformed name; a key of
 *              length 0 or over BLOOM_KEY_MAX; lengths that do not add up to
 *              keys_len; a capacity or rate outside its range; a geometry that
 *              does not fit the type; BLOOM_BATCH_F_PINNED without a
 *              pinned bitmap, a pinned bitmap without it, or either on ADD
 *              or QUERY; with BLOOM_BATCH_F_NET, a key that is not an
 *              address or netblock (host bits set, a length over the
 *              family's) or keys of both families; CREATE's @keys over
 *              BLOOM_KEYS_IPV6; a timeout or generations out of range
 *              or with a type that cannot expire (see Expiring filters);
 *              a key's timeout over its filter's largest, or key timeouts
 *              at CREATE of another type than timed
 *   E2BIG      size larger than the kernel's struct with non-zero bytes past
 *              it, or over 4096 bytes; a batch over BLOOM_BATCH_MAX_KEYS keys or
 *              BLOOM_BATCH_MAX_BYTES bytes; a filter over BLOOM_BITS_MAX bits
 *   EFAULT     a pointer the kernel cannot read or write
 *   EOPNOTSUPP a filter type this module does not implement; an operation the
 *              filter's type cannot do (DELETE on a standard or blocked
 *              filter, explicit geometry for a d-left or timed filter,
 *              BLOOM_BATCH_F_TIMEOUT on a filter that is not timed)
 *   ENOSPC     a d-left insert found every candidate bucket full (create a
 *              larger filter), or a scalable filter cannot get another
 *              stage (see Scalable filters); either way the keys before
 *              out_done were added and stay (see Deleting)
 *   EPROTOTYPE a key, batch or rule of another kind than the filter's
 *              (see Key kinds)
 *   ERANGE     CREATE with BLOOM_CREATE_F_SIZE: the numbers given cannot
 *              make a filter (a rate over 0.5, not even one key)
 *   EEXIST     a filter of that name exists already
 *   ENOENT     no filter of that name
 *   EBADF      CREATE, DESTROY, ADD, DELETE, RESTORE, MERGE, SWAP or FLUSH
 *              through a descriptor that was not opened for writing
 *   EBADFD     ADD, QUERY, DELETE or INFO of the bound filter (no name) on a
 *              descriptor that is not bound
 *   EBUSY      BIND, or CREATE with BLOOM_CREATE_F_BIND, on a descriptor
 *              that is bound already; DESTROY of a filter that firewall
 *              rules use (delete the rules first)
 *   ESTALE     ADD, QUERY, DELETE or INFO of the bound filter after that
 *              filter was destroyed (also when the destroy happens during
 *              the call)
 *   EPERM      CREATE, DESTROY, ADD, DELETE, SAVE, RESTORE, MERGE, SWAP or
 *              FLUSH without CAP_NET_ADMIN
 *   EDQUOT     the filter, or a scalable filter's next stage (ADD, and
 *              FLUSH and MERGE of scalable filters), or SAVE's copy of a
 *              filter, would take the module's memory over its
 *              limit (module parameter max_memory) or the namespace's
 *              (max_memory_per_netns, see Network namespaces)
 *   EMFILE     CREATE or RESTORE in a network namespace other than the
 *              initial one that holds max_filters_per_netns filters
 *   ENOMEM     the kernel could not allocate the memory (or the caller's
 *              memory cgroup is at its limit), also for a scalable
 *              filter's next stage
 *   EINTR      interrupted by a fatal signal while waiting for a lock (or
 *              while a batch is hashed again after its filter's contents
 *              were replaced with another hash key; RESTORE: or while
 *              reading a large snapshot)
 *   EBADMSG    RESTORE: not a snapshot, or a damaged one (a checksum, a
 *              length, a field or a counter or cell out of range)
 *   EPROTONOSUPPORT RESTORE: a snapshot of another format version, with an
 *              incompatible feature flag, or of another hash and position
 *              scheme (written by another version of bloom)
 *   EOVERFLOW  SAVE: the buffer is smaller than the snapshot (out_len says
 *              how large it must be)
 * MERGE of two filters that differ in type, geometry or hash key, or of a
 * filter with itself, is EINVAL; of d-left filters EOPNOTSUPP.
 * On any error a filter is left as it was, with four exceptions. ADD or
 * DELETE failing with EFAULT because the results bitmap became unwritable
 * during the call (the caller unmapped it; it is checked writable before the
 * filter changes): every key was applied, out_done is nkeys and out_hits is
 * right, only the bitmap is missing. ADD to a full d-left filter (ENOSPC)
 * or to a scalable filter that cannot grow (EDQUOT, ENOMEM, ENOSPC): the
 * first out_done keys were added and stay, with their result bits. MERGE
 * of scalable filters failing with EDQUOT or ENOMEM while it gives the
 * destination the stages it lacks: the stages added before the failure
 * stay, empty (they change no answer), and no key was merged. And a batch
 * whose filter is destroyed during the call fails with ESTALE: what it had
 * done went with the filter.
 */
#ifndef _UAPI_LINUX_BLOOM_H
#define _UAPI_LINUX_BLOOM_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define BLOOM_ABI_VERSION	1

#define BLOOM_NAME_LEN		32	/* includes the terminating NUL */
#define BLOOM_KEY_MAX		4096	/* longest key, in bytes */
#define BLOOM_HASH_KEY_LEN	16	/* SipHash key, 128 bits */
#define BLOOM_BATCH_MAX_KEYS	65536	/* keys in one ADD/QUERY/DELETE call */
#define BLOOM_BATCH_MAX_BYTES	(4U << 20)	/* key bytes in one call */
#define BLOOM_CAPACITY_MAX	0xffffffffULL	/* keys a filter is sized for */
#define BLOOM_FPP_PPB_MIN	1		/* p = 1e-9 */
#define BLOOM_FPP_PPB_MAX	500000000	/* p = 0.5 */
#define BLOOM_HASHES_MAX	32
#define BLOOM_BITS_MAX		(1ULL << 40)	/* 128 GiB of bits */
#define BLOOM_SCALE_STAGES_MAX	32	/* stages of a scalable filter */
#define BLOOM_GROWTH_MIN	2	/* s: stage i + 1 holds s times stage i */
#define BLOOM_GROWTH_MAX	16
#define BLOOM_GROWTH_DEFAULT	2
/* Expiring filters (see Expiring filters): the timeout and the generations. */
#define BLOOM_TIMEOUT_MS_MIN	1000ULL		/* 1 s */
#define BLOOM_TIMEOUT_MS_MAX	2147483000ULL	/* ipset's largest timeout */
#define BLOOM_GENERATIONS_MIN	2
#define BLOOM_GENERATIONS_MAX	16
#define BLOOM_GENERATIONS_DEFAULT	5
#define BLOOM_TIGHTENING_PPM_MIN	500000	/* r = 0.5 */
#define BLOOM_TIGHTENING_PPM_MAX	950000	/* r = 0.95 */
#define BLOOM_TIGHTENING_PPM_DEFAULT	850000	/* r = 0.85 */
/* Keys with their own timeouts: the largest timeout, in seconds (68 years). */
#define BLOOM_KEY_TIMEOUT_MAX	0x7fffffffU

/**
 * enum bloom_type - filter types
 * @BLOOM_TYPE_STANDARD: bit array, k bits anywhere in it per key
 * @BLOOM_TYPE_BLOCKED: bit array of 512-bit blocks, all k bits of a key in
 *	one block (one cache line per query)
 * @BLOOM_TYPE_COUNTING: 4-bit counters instead of bits: deletable
 * @BLOOM_TYPE_DLEFT: d-left counting filter: deletable in about half the
 *	memory of the counting filter from p = 0.01 down (0.74 times at 0.1,
 *	more than it above 0.23)
 * @BLOOM_TYPE_TIMED: d-left cells that hold each key's own expiry instead
 *	of a counter (BLOOM_CREATE_F_KEY_TIMEOUTS): a set of keys that each
 *	live until their timeout, and can be deleted
 */
enum bloom_type {
	BLOOM_TYPE_STANDARD = 1,
	BLOOM_TYPE_BLOCKED = 2,
	BLOOM_TYPE_COUNTING = 3,
	BLOOM_TYPE_DLEFT = 4,
	BLOOM_TYPE_TIMED = 5
};

/*
 * The types' names, indexed by enum bloom_type (NULL: no type), as the sysfs
 * file "type" shows them; libbloom's bloom_type_name() and bloomctl use the
 * same. An initialiser, so that this header defines no data:
 *	static const char *const names[] = BLOOM_TYPE_NAMES;
 */
#define BLOOM_TYPE_NAMES \
	{ (const char *)0, "standard", "blocked", "counting", "dleft", "timed" }

/**
 * enum bloom_key_kind - what a filter's keys are (see Key kinds)
 * @BLOOM_KEYS_UNKNOWN: not said (an older snapshot, or never set): any key
 * @BLOOM_KEYS_STRINGS: byte strings; never addresses
 * @BLOOM_KEYS_IPV4: IPv4 addresses (4 bytes) and netblocks (5 bytes)
 * @BLOOM_KEYS_IPV6: IPv6 addresses (16 bytes) and netblocks (17 bytes)
 */
enum bloom_key_kind {
	BLOOM_KEYS_UNKNOWN = 0,
	BLOOM_KEYS_STRINGS = 1,
	BLOOM_KEYS_IPV4 = 2,
	BLOOM_KEYS_IPV6 = 3
};

/* The kinds' names, indexed by enum bloom_key_kind, as sysfs "keys" shows them. */
#define BLOOM_KEYS_NAMES \
	{ "unknown", "strings", "ipv4", "ipv6" }

/**
 * struct bloom_version - BLOOM_IOC_VERSION: what the running module supports
 * @size: sizeof(struct bloom_version)
 * @flags: must be 0
 * @abi_version: out: BLOOM_ABI_VERSION of the module
 * @types: out: bit (1 << type) set for every implemented enum bloom_type
 * @create_flags: out: the BLOOM_CREATE_F_* flags the module knows
 * @batch_flags: out: the BLOOM_BATCH_F_* flags the module knows
 * @key_max: out: BLOOM_KEY_MAX
 * @batch_max_keys: out: BLOOM_BATCH_MAX_KEYS
 * @batch_max_bytes: out: BLOOM_BATCH_MAX_BYTES
 * @memory_limit: out: in the initial network namespace: bytes all filters
 *	may take together (max_memory); in any other: bytes that
 *	namespace's filters may take (max_memory_per_netns, or less)
 * @memory_used: out: in the initial network namespace: bytes all filters
 *	take now; in any other: bytes that namespace's filters take (no
 *	namespace learns what the others use)
 * @reserved: must be 0
 */
struct bloom_version {
	__u32 size;
	__u32 flags;
	__u32 abi_version;
	__u32 types;
	__u32 create_flags;
	__u32 batch_flags;
	__u32 key_max;
	__u32 batch_max_keys;
	__aligned_u64 batch_max_bytes;
	__aligned_u64 memory_limit;
	__aligned_u64 memory_used;
	__aligned_u64 reserved;
};

/* Bind the creating descriptor to the new filter. */
#define BLOOM_CREATE_F_BIND	(1U << 0)
/* Use @hash_key instead of a random secret. */
#define BLOOM_CREATE_F_HASH_KEY	(1U << 1)
/* Use @bits and @hashes instead of sizing from capacity and fpp_ppb. */
#define BLOOM_CREATE_F_GEOMETRY	(1U << 2)
/* A scalable filter: grows by stages (see Scalable filters). */
#define BLOOM_CREATE_F_SCALABLE	(1U << 3)
/*
 * Size from any two of capacity, fpp_ppb, bits_per_key_milli and
 * memory_bytes (the others 0), with hashes a fixed k or 0 (see Sizing).
 */
#define BLOOM_CREATE_F_SIZE	(1U << 4)
/*
 * Bit 5: the type, geometry and hash key of the filter named @like, empty
 * (so the two can be merged); @type, @capacity, @fpp_ppb, @bits, @hashes,
 * @hash_key, @memory_bytes and @bits_per_key_milli must then be 0 and no
 * other sizing flag set.
 */
#define BLOOM_CREATE_F_LIKE	(1U << 5)
/*
 * Bit 6: an expiring filter (see Expiring filters): a key tests present
 * for at least @timeout_ms after its last add, in @generations
 * generations.
 */
#define BLOOM_CREATE_F_TIMEOUT	(1U << 6)
#define BLOOM_CREATE_F_ALL	(BLOOM_CREATE_F_BIND | BLOOM_CREATE_F_HASH_KEY | \
				 BLOOM_CREATE_F_GEOMETRY | BLOOM_CREATE_F_SCALABLE | \
				 BLOOM_CREATE_F_SIZE | BLOOM_CREATE_F_LIKE | \
				 BLOOM_CREATE_F_TIMEOUT)

/**
 * struct bloom_create - BLOOM_IOC_CREATE: create a named filter
 * @size: sizeof(struct bloom_create)
 * @flags: BLOOM_CREATE_F_*
 * @type: enum bloom_type
 * @hashes: with BLOOM_CREATE_F_GEOMETRY: k, 1..BLOOM_HASHES_MAX; else 0
 * @name: the new filter's name
 * @capacity: keys the filter is sized for, 1..BLOOM_CAPACITY_MAX
 * @bits: with BLOOM_CREATE_F_GEOMETRY: m, 64..BLOOM_BITS_MAX (a multiple of
 *	512 for a blocked filter); else 0
 * @fpp_ppb: false-positive rate in parts per billion,
 *	BLOOM_FPP_PPB_MIN..BLOOM_FPP_PPB_MAX
 * @bits_per_key_milli: with BLOOM_CREATE_F_SIZE: bits of table per key of
 *	capacity, in thousandths, or 0; else 0
 * @memory_bytes: with BLOOM_CREATE_F_SIZE: the most bytes the filter's
 *	table may take, or 0; else 0
 * @hash_key: with BLOOM_CREATE_F_HASH_KEY: the SipHash key; else all zero
 * @like: with BLOOM_CREATE_F_LIKE: the filter whose type, geometry and hash
 *	key the new one takes; else all zero
 * @growth: with BLOOM_CREATE_F_SCALABLE: s, BLOOM_GROWTH_MIN..MAX, or 0 for
 *	BLOOM_GROWTH_DEFAULT; else 0
 * @tightening_ppm: with BLOOM_CREATE_F_SCALABLE: r in parts per million,
 *	BLOOM_TIGHTENING_PPM_MIN..MAX, or 0 for BLOOM_TIGHTENING_PPM_DEFAULT;
 *	else 0
 * @keys: enum bloom_key_kind: what the keys are (see Key kinds), or
 *	BLOOM_KEYS_UNKNOWN (0): set by the first add of addresses. With
 *	BLOOM_CREATE_F_LIKE, 0 takes the kind of @like.
 * @generations: with BLOOM_CREATE_F_TIMEOUT: G,
 *	BLOOM_GENERATIONS_MIN..BLOOM_GENERATIONS_MAX, or 0 for the default;
 *	else 0
 * @timeout_ms: with BLOOM_CREATE_F_TIMEOUT: the timeout,
 *	BLOOM_TIMEOUT_MS_MIN..BLOOM_TIMEOUT_MS_MAX; else 0
 * @key_timeout_s: BLOOM_TYPE_TIMED: the timeout of keys added without one,
 *	seconds, 0 (none) ..@key_timeout_max_s; else 0
 * @key_timeout_max_s: BLOOM_TYPE_TIMED: the largest timeout a key may be
 *	given, 1..BLOOM_KEY_TIMEOUT_MAX, or 0 for BLOOM_KEY_TIMEOUT_MAX; else 0
 * @reserved: must be 0
 *
 * A caller built against ABI version 1 passes the struct up to and
 * including @generations (then named reserved and 0): it is taken; so is
 * one that ends at @key_timeout_s (then named reserved and 0).
 *
 * With BLOOM_CREATE_F_SIZE, capacity and fpp_ppb may be 0 (exactly two of
 * capacity, fpp_ppb, bits_per_key_milli and memory_bytes are given, not
 * fpp_ppb with bits_per_key_milli) and @hashes is a fixed k for a standard
 * or counting filter (0: the best k); @bits must be 0.
 *
 * For a scalable filter @capacity and @fpp_ppb are stage 0's capacity and
 * the compound rate P.
 */
struct bloom_create {
	__u32 size;
	__u32 flags;
	__u32 type;
	__u32 hashes;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 capacity;
	__aligned_u64 bits;
	__u32 fpp_ppb;
	__u32 bits_per_key_milli;
	__aligned_u64 memory_bytes;
	__u8 hash_key[BLOOM_HASH_KEY_LEN];
	char like[BLOOM_NAME_LEN];
	__u32 growth;
	__u32 tightening_ppm;
	__u32 keys;
	__u32 generations;
	__aligned_u64 timeout_ms;
	__u32 key_timeout_s;
	__u32 key_timeout_max_s;
	__aligned_u64 reserved;
};

/**
 * struct bloom_name - BLOOM_IOC_DESTROY, BLOOM_IOC_BIND: name a filter
 * @size: sizeof(struct bloom_name)
 * @flags: must be 0
 * @name: the filter's name
 * @reserved: must be 0
 */
struct bloom_name {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 reserved;
};

/**
 * struct bloom_info - BLOOM_IOC_INFO: a filter's parameters and statistics
 * @size: sizeof(struct bloom_info)
 * @flags: must be 0
 * @name: in: the filter's name, or all zero for the descriptor's bound filter;
 *	out: the filter's name
 * @type: out: enum bloom_type
 * @hashes: out: k
 * @bits: out: m
 * @capacity: out: keys the filter was sized for
 * @fpp_ppb: out: false-positive rate asked for, parts per billion
 * @estimated_fpp_ppb: out: the false-positive rate a never-added key meets
 *	now, parts per billion: (bits_set/m)^k for standard and counting
 *	filters; for blocked filters the block-load model (keys per block
 *	Poisson with mean @estimated_keys / blocks); d-left: cells a query
 *	compares x 2^-fingerprint_bits. Above @fpp_ppb once the filter holds
 *	more than @capacity keys. Scalable: the compound rate
 *	1 - prod(1 - rate_i) over its stages, each stage's rate as above.
 * @memory_bytes: out: bytes of kernel memory the filter takes, all included
 * @count: out: keys added that set at least one new bit (counting: took a
 *	counter from 0; d-left: took a new cell), minus, for counting and
 *	d-left filters, keys deleted that took a counter to 0 or emptied
 *	their cell: an estimate of the distinct keys in the filter
 * @adds: out: keys passed to ADD
 * @queries: out: keys passed to QUERY
 * @hits: out: queried keys reported "may be present"
 * @bits_set: out: bits that are 1 now (counting: counters that are not 0;
 *	d-left: cells in use), kept by every add and delete (no scan)
 * @deletes: out: keys removed by DELETE
 * @delete_misses: out: keys passed to DELETE that were not found
 * @delete_pinned: out: keys passed to DELETE that were pinned (found, but a
 *	saturated counter or cell kept them; see Deleting)
 * @saturated: out: counters that reached their maximum and stay there
 * @insert_failures: out: d-left: keys refused with ENOSPC
 * @fingerprint_bits: out: d-left: bits of a fingerprint; else 0
 * @subtables: out: d-left: number of subtables (4); else 0
 * @subtable_cells: out: d-left: cells in each subtable
 * @subtable_used: out: d-left: cells in use in each subtable
 * @estimated_keys: out: distinct keys in the filter, estimated from
 *	@bits_set (Swamidass and Baldi: -(m/k) ln(1 - bits_set/m); blocked:
 *	-(m/512) ln(1 - bits_set/m) / (1 - (1 - 1/512)^k), the same under the
 *	block-load model; d-left: the cells in use); ~0 when every bit is set
 *	(too many keys to tell); scalable: the sum over its stages
 * @stages: out: scalable: stages now (1..BLOOM_SCALE_STAGES_MAX); else 0
 * @growth: out: scalable: s; else 0
 * @tightening_ppm: out: scalable: r in parts per million; else 0
 * @rules: out: firewall rules that name the filter (while this is not 0,
 *	DESTROY fails with EBUSY)
 * @packets: out: packets firewall rules (iptables -m bloom) checked against
 *	the filter
 * @packet_hits: out: of those, packets whose address may be present
 * @keys: out: enum bloom_key_kind, the filter's key kind
 * @prefixes4: out: bit L set: the filter holds IPv4 netblocks of length L
 *	(0..31; see Netblocks)
 * @prefixes6: out: bit L % 64 of word L / 64 set: the filter holds IPv6
 *	netblocks of length L (0..127)
 * @address_lookups: out: tests a lookup of an address makes at most: 1
 *	(the address) + the netblock lengths present of the kind's family
 *	(of the family with more of them when the kind is not an address
 *	family)
 * @address_fpp_ppb: out: the false-positive rate of such a lookup,
 *	1 - (1 - @estimated_fpp_ppb)^@address_lookups, at most L times the
 *	rate of one test
 * @id: out: the filter's id, unique in its network namespace while the
 *	filter exists; what BPF programs name it by (see BPF programs).
 *	SWAP and RESTORE with BLOOM_RESTORE_F_REPLACE keep it.
 * @generations: out: expiring: G; else 0
 * @timeout_ms: out: expiring: the timeout; else 0
 * @next_rotation_ms: out: expiring: milliseconds until the oldest
 *	generation is due to be cleared and become the newest (0: due now);
 *	else 0
 * @bpf_calls: out: lookups BPF programs made in the filter (kfuncs)
 * @bpf_hits: out: of those, lookups that answered "may be present"
 * @key_timeout_s: out: timed: the timeout of keys added without one; else 0
 * @key_timeout_max_s: out: timed: the largest timeout; else 0
 * @tag_bits: out: timed: the bits beside the fingerprint that ADD and
 *	DELETE compare (see Keys with their own timeouts); else 0
 * @expired: out: timed: cells of expired keys reclaimed
 * @reserved: in: must be 0; out: 0
 *
 * A caller built against ABI version 1 passes the struct up to and
 * including @generations (then named reserved): it gets that much; so
 * does one that ends at @key_timeout_s.
 *
 * For a scalable filter @bits and @bits_set are the sums over its stages,
 * @hashes is stage 0's k, @capacity stage 0's capacity and @fpp_ppb the
 * compound rate asked for; BLOOM_IOC_STAGES has each stage.
 */
struct bloom_info {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__u32 type;
	__u32 hashes;
	__aligned_u64 bits;
	__aligned_u64 capacity;
	__u32 fpp_ppb;
	__u32 estimated_fpp_ppb;
	__aligned_u64 memory_bytes;
	__aligned_u64 count;
	__aligned_u64 adds;
	__aligned_u64 queries;
	__aligned_u64 hits;
	__aligned_u64 bits_set;
	__aligned_u64 deletes;
	__aligned_u64 delete_misses;
	__aligned_u64 delete_pinned;
	__aligned_u64 saturated;
	__aligned_u64 insert_failures;
	__u32 fingerprint_bits;
	__u32 subtables;
	__aligned_u64 subtable_cells;
	__aligned_u64 subtable_used[4];
	__aligned_u64 estimated_keys;
	__u32 stages;
	__u32 growth;
	__u32 tightening_ppm;
	__u32 rules;
	__aligned_u64 packets;
	__aligned_u64 packet_hits;
	__u32 keys;
	__u32 prefixes4;
	__aligned_u64 prefixes6[2];
	__u32 address_lookups;
	__u32 address_fpp_ppb;
	__u32 id;
	__u32 generations;
	__aligned_u64 timeout_ms;
	__aligned_u64 next_rotation_ms;
	__aligned_u64 bpf_calls;
	__aligned_u64 bpf_hits;
	__u32 key_timeout_s;
	__u32 key_timeout_max_s;
	__u32 tag_bits;
	__u32 reserved0;
	__aligned_u64 expired;
	__aligned_u64 reserved;
};

/**
 * struct bloom_list - BLOOM_IOC_LIST: the names of all filters
 * @size: sizeof(struct bloom_list)
 * @flags: must be 0
 * @capacity: in: number of BLOOM_NAME_LEN-byte slots at @names (may be 0)
 * @out_count: out: number of filters; when larger than @capacity only the
 *	first @capacity names were written: call again with more room
 * @names: in: user pointer to char[@capacity][BLOOM_NAME_LEN], sorted by
 *	name on return
 * @reserved: must be 0
 */
struct bloom_list {
	__u32 size;
	__u32 flags;
	__u32 capacity;
	__u32 out_count;
	__aligned_u64 names;
	__aligned_u64 reserved;
};

/**
 * struct bloom_batch - BLOOM_IOC_ADD, BLOOM_IOC_QUERY, BLOOM_IOC_DELETE: many
 *	keys in one call
 * @size: sizeof(struct bloom_batch)
 * @flags: BLOOM_BATCH_F_* (BLOOM_BATCH_F_PINNED: DELETE only)
 * @nkeys: number of keys, 0..BLOOM_BATCH_MAX_KEYS
 * @key_size: 0: keys of different lengths, given at @lens; else every key
 *	is @key_size bytes (1..BLOOM_KEY_MAX) and @lens must be 0
 * @keys: user pointer to the keys, packed one after the other
 * @lens: user pointer to __u32[@nkeys], each 1..BLOOM_KEY_MAX, when
 *	@key_size is 0; else 0
 * @keys_len: bytes at @keys; must equal the sum of the lengths, at most
 *	BLOOM_BATCH_MAX_BYTES
 * @results: user pointer to a bitmap of (@nkeys + 7) / 8 bytes (see
 *	Results above), or 0 when the caller needs only the counts
 * @pinned: with BLOOM_BATCH_F_PINNED: user pointer to a bitmap of
 *	(@nkeys + 7) / 8 bytes that receives a set bit for every pinned key
 *	(see Deleting); else 0
 * @out_done: out: keys processed (@nkeys on success)
 * @out_hits: out: QUERY: keys that may be present; ADD: keys whose bits were
 *	all set already; DELETE: keys found and removed (pinned keys are not)
 * @out_pinned: out: DELETE: keys found but pinned. Keys not found:
 *	@out_done - @out_hits - @out_pinned
 * @timeout_s: ADD with BLOOM_BATCH_F_TIMEOUT: every key's timeout in
 *	seconds when @timeouts is 0; else 0
 * @timeouts: ADD with BLOOM_BATCH_F_TIMEOUT: user pointer to
 *	__u32[@nkeys], key i's timeout, or 0; else 0
 * @reserved: must be 0
 *
 * A caller built against ABI version 1 passes the struct up to and
 * including @timeout_s (then named reserved and 0): it is taken.
 */
struct bloom_batch {
	__u32 size;
	__u32 flags;
	__u32 nkeys;
	__u32 key_size;
	__aligned_u64 keys;
	__aligned_u64 lens;
	__aligned_u64 keys_len;
	__aligned_u64 results;
	__aligned_u64 pinned;
	__u32 out_done;
	__u32 out_hits;
	__u32 out_pinned;
	__u32 timeout_s;
	__aligned_u64 timeouts;
	__aligned_u64 reserved;
};

/* DELETE: report the pinned keys in the bitmap at @pinned. */
#define BLOOM_BATCH_F_PINNED	(1U << 0)
/*
 * The keys are addresses and netblocks (see Netblocks), all of one family:
 * ADD and DELETE count their lengths, QUERY looks each up over the
 * lengths present. Implied on a filter whose kind is ipv4 or ipv6.
 */
#define BLOOM_BATCH_F_NET	(1U << 1)
/*
 * ADD to a timed filter: the keys' timeouts are @timeout_s or @timeouts
 * (see Keys with their own timeouts), not the filter's default.
 */
#define BLOOM_BATCH_F_TIMEOUT	(1U << 2)
#define BLOOM_BATCH_F_ALL	(BLOOM_BATCH_F_PINNED | BLOOM_BATCH_F_NET | \
				 BLOOM_BATCH_F_TIMEOUT)

/* The snapshot format (Documentation/snapshot.rst); the kernel reads it. */
#define BLOOM_SNAP_MAGIC	"\211BLOOM\r\n"	/* 8 bytes: 0x89 "BLOOM" CR LF */
#define BLOOM_SNAP_VERSION	1

/**
 * struct bloom_save - BLOOM_IOC_SAVE: a filter as a snapshot
 * @size: sizeof(struct bloom_save)
 * @flags: must be 0
 * @name: the filter, or all zero for the descriptor's bound filter
 * @buf: user pointer to @buf_len bytes that receive the snapshot; 0 to
 *	learn its size only
 * @buf_len: bytes at @buf
 * @out_len: out: bytes of the snapshot (written at @buf when it fits,
 *	else EOVERFLOW)
 * @reserved: must be 0
 */
struct bloom_save {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 buf;
	__aligned_u64 buf_len;
	__aligned_u64 out_len;
	__aligned_u64 reserved;
};

/* Give the restored filter @name instead of the name in the snapshot. */
#define BLOOM_RESTORE_F_NAME	(1U << 0)
/*
 * Replace the contents of the existing filter of that name (ENOENT if there
 * is none; EINVAL if it is of another type) instead of creating one; queries
 * running meanwhile see the old contents or the new, never neither.
 */
#define BLOOM_RESTORE_F_REPLACE	(1U << 1)
#define BLOOM_RESTORE_F_ALL	(BLOOM_RESTORE_F_NAME | BLOOM_RESTORE_F_REPLACE)

/**
 * struct bloom_restore - BLOOM_IOC_RESTORE: a filter from a snapshot
 * @size: sizeof(struct bloom_restore)
 * @flags: BLOOM_RESTORE_F_*
 * @name: with BLOOM_RESTORE_F_NAME: the new filter's name; else all zero
 * @buf: user pointer to the snapshot, the whole file
 * @buf_len: bytes at @buf: exactly the snapshot's size
 * @reserved: must be 0
 */
struct bloom_restore {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 buf;
	__aligned_u64 buf_len;
	__aligned_u64 reserved;
};

/**
 * struct bloom_pair - BLOOM_IOC_MERGE, BLOOM_IOC_SWAP: two filters
 * @size: sizeof(struct bloom_pair)
 * @flags: must be 0
 * @name: MERGE: the destination, which becomes the union of both; SWAP: one
 * @other: MERGE: the source, left as it is; SWAP: the other
 * @reserved: must be 0
 */
struct bloom_pair {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	char other[BLOOM_NAME_LEN];
	__aligned_u64 reserved;
};

/**
 * struct bloom_stage - one stage of a scalable filter (BLOOM_IOC_STAGES)
 * @capacity: keys it holds at most
 * @bits: its m
 * @count: new keys added to it (at most @capacity)
 * @bits_set: its bits that are 1 now
 * @fpp_ppb: its rate at capacity, parts per billion
 * @hashes: its k
 * @estimated_fpp_ppb: its rate estimated from its bits now, as struct
 *	bloom_info's @estimated_fpp_ppb is for a filter of its type
 * @age_ms: expiring: milliseconds since this generation became the newest
 *	by the schedule (a rotation may run a little later), at most
 *	0xffffffff; else 0
 */
struct bloom_stage {
	__aligned_u64 capacity;
	__aligned_u64 bits;
	__aligned_u64 count;
	__aligned_u64 bits_set;
	__u32 fpp_ppb;
	__u32 hashes;
	__u32 estimated_fpp_ppb;
	__u32 age_ms;
};

/**
 * struct bloom_stages - BLOOM_IOC_STAGES: the stages of a scalable filter
 * @size: sizeof(struct bloom_stages)
 * @flags: must be 0
 * @name: the filter's name, or all zero for the descriptor's bound filter
 * @capacity: in: number of struct bloom_stage slots at @stages (may be 0)
 * @out_count: out: stages the filter has; when larger than @capacity only
 *	the first @capacity were written: call again with more room
 *	(BLOOM_SCALE_STAGES_MAX is always enough)
 * @stages: in: user pointer to struct bloom_stage[@capacity], oldest stage
 *	first on return
 * @reserved: must be 0
 *
 * An expiring filter's generations come back the same way (@count: the
 * keys that set a new bit in it). A filter that is neither: EOPNOTSUPP.
 */
struct bloom_stages {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__u32 capacity;
	__u32 out_count;
	__aligned_u64 stages;
	__aligned_u64 reserved;
};

#define BLOOM_IOC_MAGIC		0xBF	/* unused in ioctl-number.rst of 6.1 */

#define BLOOM_IOC_VERSION	_IO(BLOOM_IOC_MAGIC, 0x00)
#define BLOOM_IOC_CREATE	_IO(BLOOM_IOC_MAGIC, 0x01)
#define BLOOM_IOC_DESTROY	_IO(BLOOM_IOC_MAGIC, 0x02)
#define BLOOM_IOC_BIND		_IO(BLOOM_IOC_MAGIC, 0x03)
#define BLOOM_IOC_INFO		_IO(BLOOM_IOC_MAGIC, 0x04)
#define BLOOM_IOC_LIST		_IO(BLOOM_IOC_MAGIC, 0x05)
#define BLOOM_IOC_ADD		_IO(BLOOM_IOC_MAGIC, 0x06)
#define BLOOM_IOC_QUERY		_IO(BLOOM_IOC_MAGIC, 0x07)
#define BLOOM_IOC_DELETE	_IO(BLOOM_IOC_MAGIC, 0x08)
#define BLOOM_IOC_SAVE		_IO(BLOOM_IOC_MAGIC, 0x09)	/* bloom_save */
#define BLOOM_IOC_RESTORE	_IO(BLOOM_IOC_MAGIC, 0x0a)	/* bloom_restore */
#define BLOOM_IOC_MERGE		_IO(BLOOM_IOC_MAGIC, 0x0b)	/* bloom_pair */
#define BLOOM_IOC_SWAP		_IO(BLOOM_IOC_MAGIC, 0x0c)	/* bloom_pair */
#define BLOOM_IOC_FLUSH		_IO(BLOOM_IOC_MAGIC, 0x0d)	/* bloom_name */
#define BLOOM_IOC_STAGES	_IO(BLOOM_IOC_MAGIC, 0x0e)	/* bloom_stages */

#endif /* _UAPI_LINUX_BLOOM_H */
