// SPDX-License-Identifier: GPL-2.0
/*
 * A store's mappable memory (map.h has the rules): the area, its header
 * page and the VMAs that map it read-only.
 *
 * The pages are vmalloc's, charged to the creator's memory cgroup as the
 * rest of the filter is (GFP_KERNEL_ACCOUNT), and handed to a VMA one at a
 * time by its fault handler, as drivers with vmalloc buffers do. The VMA
 * never may write (VM_MAYWRITE cleared: no mprotect() to write, no
 * FOLL_FORCE write through /proc/PID/mem or ptrace), never grows
 * (VM_DONTEXPAND) and stays out of core dumps (VM_DONTDUMP: the header
 * holds the hash key). A fork copies it: the child's VMA takes its own
 * user and reference.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/page_ref.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "alloc.h"
#include "map.h"

u64 bloom_map_bytes(u64 storage_bytes)
{
	return PAGE_SIZE + PAGE_ALIGN(storage_bytes) +
	       kmalloc_size_roundup(sizeof(struct bloom_map));
}

struct bloom_map *bloom_map_new(struct bloom_account *acct,
				u64 storage_bytes, u64 charged)
{
	struct bloom_map *m;

	m = bloom_kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return NULL;
	m->len = PAGE_SIZE + PAGE_ALIGN(storage_bytes);
	/*
	 * __GFP_RETRY_MAYFAIL: a filter too big for the creator's memory
	 * cgroup fails with -ENOMEM instead of waking the OOM killer.
	 */
	m->hdr = bloom_vzalloc_pages(m->len, GFP_KERNEL_ACCOUNT |
					     __GFP_RETRY_MAYFAIL);
	if (!m->hdr) {
		bloom_kfree(m);
		return NULL;
	}
	refcount_set(&m->users, 1);
	refcount_set(&m->refs, 1);
	m->acct = acct;
	m->charged = charged;
	m->hdr->magic = BLOOM_MAP_MAGIC;
	m->hdr->header_size = sizeof(*m->hdr);
	m->hdr->bits_offset = PAGE_SIZE;
	m->hdr->map_len = m->len;
	return m;
}

void *bloom_map_bits(const struct bloom_map *m)
{
	return (u8 *)m->hdr + PAGE_SIZE;
}

void bloom_map_describe(struct bloom_map *m, const struct bloom_core *core,
			u32 keys)
{
	struct bloom_map_header *h = m->hdr;

	h->type = core->geo.type;
	h->hashes = core->geo.hashes;
	h->bits = core->geo.bits;
	h->bits_len = bloom_core_storage_bytes(&core->geo);
	h->keys = keys;
	h->scheme = bloom_scheme_of_hash(core->key.hash);
	h->hash = core->key.hash;
	bloom_hash_key_to_bytes(&core->key, h->hash_key);
}

void bloom_map_retire(struct bloom_map *m)
{
	if (refcount_dec_and_test(&m->users))
		bloom_account_release(m->acct, m->charged);
}

void bloom_map_put(struct bloom_map *m)
{
	if (!refcount_dec_and_test(&m->refs))
		return;
	memzero_explicit(m->hdr->hash_key, sizeof(m->hdr->hash_key));
	bloom_kvfree(m->hdr);
	bloom_kfree(m);
}

/*
 * Readers (userspace) pair with: an acquire load of @seq before testing
 * bits and a load after a read barrier once done (libbloom's map.c).
 */
void bloom_map_change_begin(struct bloom_map *m)
{
	WRITE_ONCE(m->hdr->seq, m->hdr->seq + 1);
	/* the odd @seq is seen before any bit the change writes */
	smp_wmb();
}

void bloom_map_change_end(struct bloom_map *m)
{
	/* every bit the change wrote is seen before the even @seq */
	smp_wmb();
	WRITE_ONCE(m->hdr->seq, m->hdr->seq + 1);
}

void bloom_map_set_stale(struct bloom_map *m)
{
	WRITE_ONCE(m->hdr->flags, m->hdr->flags | BLOOM_MAP_F_STALE);
}

void bloom_map_set_keys(struct bloom_map *m, u32 keys, bool published)
{
	if (m->hdr->keys == keys)
		return;
	if (!published) {
		WRITE_ONCE(m->hdr->keys, keys);
		return;
	}
	bloom_map_change_begin(m);
	WRITE_ONCE(m->hdr->keys, keys);
	bloom_map_change_end(m);
}

/* A fork or a split: the new VMA holds the area as the old one does. */
static void bloom_map_vm_open(struct vm_area_struct *vma)
{
	struct bloom_map *m = vma->vm_private_data;

	refcount_inc(&m->users);
	refcount_inc(&m->refs);
}

static void bloom_map_vm_close(struct vm_area_struct *vma)
{
	struct bloom_map *m = vma->vm_private_data;

	bloom_map_retire(m);
	bloom_map_put(m);
}

static vm_fault_t bloom_map_vm_fault(struct vm_fault *vmf)
{
	struct bloom_map *m = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff >= m->len >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page((u8 *)m->hdr + (vmf->pgoff << PAGE_SHIFT));
	/*
	 * The reference the fault hands back with the page, taken on the page
	 * itself: vmalloc's pages are order-0 and never compound (it splits
	 * the higher-order pages it allocates so that each may be refcounted
	 * alone), so get_page()'s lookup of a compound head would find the
	 * page again. That lookup costs a static key (the vmemmap of
	 * optimised hugetlb pages) whose registration at module load
	 * allocates, and a failure there only WARNs: bloom.ko uses none of
	 * the kernel's static keys (tools/lint.sh checks).
	 */
	page_ref_inc(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct bloom_map_vm_ops = {
	.open = bloom_map_vm_open,
	.close = bloom_map_vm_close,
	.fault = bloom_map_vm_fault,
};

int bloom_map_vma(struct bloom_map *m, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start > m->len)
		return -EINVAL;
	if (!refcount_inc_not_zero(&m->users))
		return -ESTALE;
	refcount_inc(&m->refs);
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_ops = &bloom_map_vm_ops;
	vma->vm_private_data = m;
	return 0;
}
