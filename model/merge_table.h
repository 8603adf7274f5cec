// Merge table of the intra-cluster coalescing (ICC) unit, seed 001 §6.1 (Figure 9): a fully
// associative table of outstanding cluster reads, one entry per L2 line with the list of SMs
// waiting for it. Only global reads are recorded (the caller filters); a read that finds an entry
// is merged and not sent to the NoC; a read that finds none allocates an entry if one is free and
// is sent; with the table full it is sent unmerged. A reply is looked up by its address: if an
// entry holds the line, the reply is broadcast to its SM list and the entry is freed (§6.1), no
// matter which of the line's outstanding requests the reply answers.
//
// One refinement over the paper's address-only matching, invisible with 128 B unsectored lines
// (the paper's configuration): a read merges only if the outstanding request fetches every byte
// it needs, and a reply frees an entry only if it carries every byte the entry's request fetches
// (sectored L1s fetch partial lines, so a second request for the line may bring fewer bytes).
// When a reply other than the leader's frees an entry, the leader's own reply later finds no
// entry (or a newer one) and goes to the leader's SM: every request gets exactly one response.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/types.h"

namespace locsim {

enum class MergeOutcome {
  Merged,     // an entry covered the read: it waits for that entry's reply
  Allocated,  // new entry: send the read to the NoC as the entry's leader
  Full,       // no entry and no free one: send unmerged
  Uncovered,  // an entry exists but fetches fewer bytes than needed: send unmerged
};

template <class Req>
class MergeTable {
 public:
  struct Entry {
    bool valid = false;
    Addr line = 0;
    ByteMask fetched;                // bytes the leader's request brings back
    Req leader{};                    // the request sent to the NoC
    std::vector<std::uint16_t> sms;  // SM list: leader's SM first, then merged SMs in order
    std::vector<Req> merged;         // requests waiting for the leader's reply
  };

  explicit MergeTable(std::uint32_t entries) : entries_(entries) {}

  std::uint32_t capacity() const { return static_cast<std::uint32_t>(entries_.size()); }
  std::uint32_t in_use() const { return used_; }
  bool full() const { return used_ == entries_.size(); }

  // A global read of `needed` bytes of `line` by SM `sm` (request handle r) looks the table up.
  MergeOutcome lookup(Addr line, const ByteMask& needed, std::uint16_t sm, Req r) {
    Entry* e = find_mutable(line);
    if (e) {
      if ((needed.w[0] & ~e->fetched.w[0]) | (needed.w[1] & ~e->fetched.w[1]))
        return MergeOutcome::Uncovered;
      e->sms.push_back(sm);
      e->merged.push_back(r);
      return MergeOutcome::Merged;
    }
    for (Entry& f : entries_) {
      if (f.valid) continue;
      f.valid = true;
      f.line = line;
      f.fetched = needed;
      f.leader = r;
      f.sms.assign(1, sm);
      f.merged.clear();
      ++used_;
      return MergeOutcome::Allocated;
    }
    return MergeOutcome::Full;
  }

  // Where a lookup of this line would land (no side effect).
  const Entry* find(Addr line) const {
    for (const Entry& e : entries_)
      if (e.valid && e.line == line) return &e;
    return nullptr;
  }

  // Index of the entry holding `line`, -1 if none.
  int index_of(Addr line) const {
    const Entry* e = find(line);
    return e ? static_cast<int>(e - entries_.data()) : -1;
  }

  // The entry a reply carrying `bytes` of `line` frees, or nullptr: the entry holding the line
  // if the reply brings every byte its request fetches (no side effect).
  const Entry* releasing(Addr line, const ByteMask& bytes) const {
    const Entry* e = find(line);
    if (!e || (e->fetched.w[0] & ~bytes.w[0]) | (e->fetched.w[1] & ~bytes.w[1])) return nullptr;
    return e;
  }

  // A reply carrying `bytes` of `line` for a request of SM `sm` arrived. If it frees an entry
  // (see releasing), returns true with the SMs it goes to (`sm` first, then one per merged
  // request, in merge order) and the merged requests; the entry becomes free. The entry's
  // leader, when it is not the request replied to, is still in flight and is not returned.
  // Otherwise the reply goes only to its own SM (false).
  bool release(Addr line, const ByteMask& bytes, std::uint16_t sm, std::vector<std::uint16_t>& sms,
               std::vector<Req>& merged) {
    Entry* e = const_cast<Entry*>(releasing(line, bytes));
    if (!e) return false;
    sms.push_back(sm);
    sms.insert(sms.end(), e->sms.begin() + 1, e->sms.end());
    merged.swap(e->merged);
    e->sms.clear();
    e->merged.clear();
    e->valid = false;
    --used_;
    return true;
  }

  template <class F>
  void for_each(F&& f) const {
    for (const Entry& e : entries_)
      if (e.valid) f(e);
  }

 private:
  Entry* find_mutable(Addr line) {
    for (Entry& e : entries_)
      if (e.valid && e.line == line) return &e;
    return nullptr;
  }
  std::vector<Entry> entries_;
  std::uint32_t used_ = 0;
};

}  // namespace locsim
