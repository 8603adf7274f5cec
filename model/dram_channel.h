// One GDDR5 channel: per-bank state machines with the JEDEC-style timing constraints, a request
// queue and an FR-FCFS scheduler (row hits first, then oldest). Times are in DRAM command clock
// cycles. The owner asks when the next command can issue, sleeps until then, and calls issue().
#pragma once
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <vector>

#include "model/types.h"

namespace locsim {

struct DramTiming {
  std::uint32_t tCL = 12;          // RD -> first data
  std::uint32_t tWL = 4;           // WR -> first data (write latency)
  std::uint32_t tRP = 12;          // PRE -> ACT same bank
  std::uint32_t tRC = 40;          // ACT -> ACT same bank
  std::uint32_t tRAS = 28;         // ACT -> PRE same bank
  std::uint32_t tRCD = 12;         // ACT -> RD/WR same bank
  std::uint32_t tRRD = 6;          // ACT -> ACT different banks
  std::uint32_t tCCD = 2;          // column command -> column command
  std::uint32_t tWR = 12;          // end of write data -> PRE same bank
  std::uint32_t tWTR = 5;          // end of write data -> RD
  std::uint32_t tRTW = 2;          // extra bus turnaround RD -> WR
  std::uint32_t burst_cycles = 2;  // data bus cycles per column access (BL8 on a DDR bus / 2... )
  void validate() const;
};

struct DramRequest {
  std::uint64_t id = 0;  // owner's handle
  std::uint32_t bank = 0;
  std::uint32_t row = 0;
  std::uint32_t column = 0;
  bool is_write = false;
  Cycle arrival = 0;
};

enum class DramCommandType : std::uint8_t { Activate, Precharge, Read, Write };

// Which command bus issue() may use. GDDR5 has one command bus: a column command (RD/WR) or a
// row command (ACT/PRE) per cycle. HBM has separate row and column command buses (JEDEC
// JESD235), so an ACT for the next bank can go out in the same cycle as a RD of the open one;
// the owner then calls issue() once with Column and once with Row per cycle.
enum class DramBus : std::uint8_t { Any, Column, Row };

struct DramCommand {
  DramCommandType type = DramCommandType::Activate;
  std::uint32_t bank = 0;
  std::uint32_t row = 0;
  Cycle cycle = 0;
  std::uint64_t request_id = 0;  // for Read/Write
  bool row_hit = false;          // Read/Write served without an ACT of its own
  Cycle data_done = 0;           // Read/Write: cycle the last data beat is on the bus
};

class DramChannelModel {
 public:
  static constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

  DramChannelModel(const DramTiming& t, std::uint32_t banks, std::uint32_t queue_capacity);

  bool can_accept() const { return count_ < capacity_; }
  std::size_t queued() const { return count_; }
  // Room for this many more requests.
  std::uint32_t room() const { return capacity_ - count_; }
  // Precondition: can_accept().
  void enqueue(const DramRequest& r) { put(r, 1); }
  // n requests that differ only in their columns (r.column, + column_step, ...), in that order:
  // the same as n calls of enqueue(), as one queue entry (a DRAM atom run of one cache line; the
  // columns do not enter the timing, so the entry keeps the first). Precondition: 1 <= n <=
  // room().
  void enqueue_run(const DramRequest& r, std::uint32_t n, std::uint32_t /*column_step*/) {
    put(r, n);
  }
  // The next k requests of the run the last enqueue() or enqueue_run() queued in part (r: the
  // first of them; the same id, bank, row and kind, later columns), with nothing enqueued since:
  // the same as enqueue_run(r, k, ...), joined to that run's entry while it still holds one of
  // its requests. Precondition: 1 <= k <= room().
  [[gnu::always_inline]] void extend(const DramRequest& r, std::uint32_t k);
  // Earliest cycle >= now at which issue() will issue a command, or kNever if the queue is empty;
  // `now` is not before the last command issued (time does not go back).
  Cycle next_command_cycle(Cycle now) const {
    if (stale_) refresh();
    return std::max(std::min(next_col_, next_row_), now);
  }
  // Issues the FR-FCFS-chosen command at cycle now if one is legal; returns false otherwise.
  // The model does not limit commands per cycle: the owner issues at most one per DRAM cycle
  // and bus. A Read/Write command removes its request from the queue (completed at
  // cmd.data_done). `bus` limits the choice to column or row commands (Any: a legal row hit
  // first, else the oldest request's ACT or PRE).
  [[gnu::always_inline]] bool issue(Cycle now, DramCommand& cmd, DramBus bus = DramBus::Any) {
    bool issued = false;
    issue(
        now, cmd, bus,
        [&](const DramRequest& r, bool row_hit) {
          const auto t = r.is_write ? DramCommandType::Write : DramCommandType::Read;
          cmd = DramCommand{t, r.bank, r.row, now, r.id, row_hit, data_done(now, r.is_write)};
          issued = true;
        },
        [&](const DramCommand&) { issued = true; });
    return issued;
  }
  // issue() for an owner that takes a Read/Write's result directly: col(request, row_hit) is
  // called instead of filling cmd (the usual command's fields reach the owner in registers, not
  // through memory; its data_done() is the owner's to ask); an ACT/PRE fills cmd and calls
  // row(cmd). Returns true for a Read/Write.
  template <class Col, class Row>
  [[gnu::always_inline]] bool issue(Cycle now, DramCommand& cmd, DramBus bus, Col&& col,
                                    Row&& row) {
    // Inline: the usual answer, that no bank can issue a command of this bus yet, comes from the
    // cache. FR-FCFS: the oldest legal row hit, else the oldest request whose ACT/PRE is legal.
    // Forced inline, with column_command(), into the owner's run: GCC would outline the whole.
    if (stale_) refresh();
    if (bus != DramBus::Row && next_col_ <= now) return column_command(now, col);
    if (bus != DramBus::Column && next_row_ <= now && row_command(now, cmd)) row(cmd);
    return false;
  }

  // The cycle the last data beat of a Read (Write) issued at `now` is on the bus.
  Cycle data_done(Cycle now, bool write) const { return now + (write ? wr_done_ : rd_done_); }

  // The row bus's issue() right after the column bus's at the same cycle (two command buses): a
  // column command leaves the cached cycles fresh, so they are not tested for staleness again.
  bool issue_row_after_column(Cycle now, DramCommand& cmd) {
    return next_row_ <= now && row_command(now, cmd);
  }

  // Forgets the cached earliest command cycles and the next hit, so that the next issue() decides
  // by its full scans (tests compare the two).
  void drop_cache() {
    stale_ = true;
    next_hit_at_ = kNever;
  }

  std::uint64_t row_hits() const { return row_hits_; }
  std::uint64_t activates() const { return activates_; }
  std::uint64_t precharges() const { return precharges_; }

 private:
  static constexpr std::uint32_t kNil = ~std::uint32_t{0};
  struct Bank {
    bool open = false;
    std::uint32_t row = 0;
    Cycle next_act = 0, next_pre = 0, next_rd = 0, next_wr = 0;
    bool accessed_since_act = false;
    // Kept up to date on every enqueue / command so that the scheduler's questions are answered
    // per bank instead of by rescanning the queue: queued requests of this bank, and those of
    // them that hit the open row (0 while closed), reads and writes.
    std::uint32_t queued = 0, hit_rd = 0, hit_wr = 0;
    bool hit_pending() const { return hit_rd + hit_wr != 0; }
    std::uint32_t head = kNil, tail = kNil;  // this bank's queued requests, oldest first
  };
  // Earliest cycle at which bank b (with queued requests) can issue a command FR-FCFS allows: a
  // column command of a row hit, else PRE (only with no hit pending) or ACT. The command is a
  // column command iff b.open && b.hit_pending().
  Cycle bank_ready(const Bank& b) const;
  // issue()'s two cases: the oldest legal row hit's RD/WR, else the oldest legal ACT/PRE.
  template <class Col>
  [[gnu::always_inline]] bool column_command(Cycle now, Col& on_column);
  bool row_command(Cycle now, DramCommand& cmd);
  [[noreturn]] void bad_enqueue(const DramRequest& r) const;
  static bool column_bank(const Bank& b) { return b.open && b.hit_pending(); }
  // Recomputes next_col_ / next_row_ from the busy banks.
  void refresh() const;
  // Calls f(bank) for each bank with queued requests, in increasing bank order, until f returns
  // true (the scheduler's per-bank questions skip the idle banks).
  template <class F>
  void for_each_busy_bank(F&& f) const {
    for (std::size_t k = 0; k < busy_.size(); ++k)
      for (std::uint64_t m = busy_[k]; m; m &= m - 1)
        if (f(banks_[k * 64 + static_cast<unsigned>(__builtin_ctzll(m))])) return;
  }
  // The queue: per bank a doubly linked list in arrival order over capacity_ fixed slots, with
  // an arrival number per request. FR-FCFS's "oldest request that ..." is then the oldest such
  // request of each bank (mostly its first), compared across banks by arrival number, and a
  // request leaves from the middle without moving the others. 64 bytes (60 used): an index
  // becomes an address by one shift, where a 56-byte stride takes three instructions.
  //
  // An entry holds a run of n requests that differ only in their columns (enqueue_run(),
  // extend()), taken by n column commands: they are consecutive in arrival order, so they are
  // next to each other in every list and order, and an entry stands for all of them (its seq is
  // its first's, the others' lie between it and the next entry's). The bank's and the channel's
  // counts count requests.
  struct alignas(64) Slot {
    DramRequest r;
    std::uint64_t seq = 0;
    std::uint32_t prev = kNil, next = kNil;
    std::uint32_t hprev = kNil, hnext = kNil;  // its row-hit list (while a row hit)
    std::uint32_t n = 0;                       // requests left in the entry (0: free)
  };
  // enqueue() and enqueue_run(): a new entry of n requests.
  [[gnu::always_inline]] void put(const DramRequest& r, std::uint32_t n);
  // put() out of line: extend()'s rare case, kept out of its inlined copies.
  [[gnu::noinline]] void put_new(const DramRequest& r, std::uint32_t n) { put(r, n); }
  void unlink(std::uint32_t i);
  // The row hits of all banks, one list per kind (0 reads, 1 writes) in arrival order: the
  // oldest legal hit is the first of its list whose bank is past tRCD (usually the head), so a
  // column command needs no pass over the banks. A request joins at enqueue (youngest: the
  // tail) or when an ACT opens its row (merged by arrival number), and leaves with its RD/WR.
  std::uint32_t hit_head_[2] = {kNil, kNil}, hit_tail_[2] = {kNil, kNil};
  void hit_insert(std::uint32_t i, std::uint32_t before);  // kNil: at the tail
  void hit_unlink(std::uint32_t i);
  // The first request of hit list k whose bank may take its column command at `now` (the
  // channel-wide limit aside), kNil if none.
  std::uint32_t first_ripe(unsigned k, Cycle now) const;
  // max(the smallest bank-side cycle of hit list k's column commands, floor), kNever if the list
  // is empty; the scan stops at the first bank not later than floor (k's channel-wide limit),
  // which is then first_ripe(k, floor), left in `at` (kNil if none).
  Cycle hit_ready(unsigned k, Cycle floor, std::uint32_t& at) const;
  // The hit the column command at cycle next_hit_at_ takes (kNever: none known): the last column
  // command's hit_ready() found it, where that cycle is its kind's channel-wide limit and the
  // other kind's is later. It stays the answer while its list changes only at its tail
  // (enqueue) and no bank's column cycles change (an ACT drops it); the next column command
  // usually comes at that cycle and takes it without scanning the lists.
  Cycle next_hit_at_ = kNever;
  std::uint32_t next_hit_ = kNil;

  // Column-command spacings derived from t_ (cycles after a RD/WR at `now`): its data end, its
  // bank's earliest PRE, the next command of the same kind, of the other kind (bus turnaround).
  Cycle rd_done_ = 0, wr_done_ = 0, rd_pre_ = 0, wr_pre_ = 0, col_gap_ = 0, rd_to_wr_ = 0,
        wr_to_rd_ = 0;
  std::vector<Bank> banks_;
  std::vector<std::uint64_t> busy_;  // bit per bank: queued > 0
  std::vector<std::uint64_t> hits_;  // bit per bank: column_bank() (open, queued hits)
  // capacity_ entries, then one that is never used (n = 0): last_'s value before any enqueue.
  std::vector<Slot> slots_;
  std::uint32_t free_head_ = kNil;  // unused slots, linked by their `next`
  std::uint32_t last_ = 0;          // the entry of the last enqueue (free once n is 0)
  std::uint32_t nbanks_ = 0;
  std::uint32_t count_ = 0;
  std::uint64_t seq_ = 0;  // arrival numbers
  std::uint32_t capacity_;
  Cycle next_act_any_ = 0;  // tRRD
  Cycle next_rd_any_ = 0;   // tCCD / tWTR / bus
  Cycle next_wr_any_ = 0;   // tCCD / tRTW / bus
  std::uint64_t row_hits_ = 0, activates_ = 0, precharges_ = 0;
  // The earliest cycle (not limited by any "now") at which a column command, and a row command,
  // can issue: the minimum of bank_ready() over the busy banks of each kind, kNever if none.
  // After a column command next_col_ may instead hold that command's cycle where the minimum is
  // earlier (the same answer for every cycle from then on). issue() returns at once when neither
  // can issue. enqueue() keeps them exact where it can and otherwise marks them stale
  // (recomputed when next asked).
  mutable Cycle next_col_ = kNever, next_row_ = kNever;
  mutable bool stale_ = false;
  // Last: only row commands read it (the column commands' spacings are above).
  DramTiming t_;
};

// Inline, with the helpers it uses: the memory controller's run enqueues one atom per slot freed
// in a full queue, where the call's entry and exit were a sixth of the cost.
inline Cycle DramChannelModel::bank_ready(const Bank& b) const {
  if (!b.open) return std::max(b.next_act, next_act_any_);
  if (!b.hit_pending()) return b.next_pre;
  // FR-FCFS does not close a row that queued requests still hit.
  Cycle c = kNever;
  if (b.hit_rd) c = std::max(b.next_rd, next_rd_any_);
  if (b.hit_wr) c = std::min(c, std::max(b.next_wr, next_wr_any_));
  return c;
}

inline void DramChannelModel::hit_insert(std::uint32_t i, std::uint32_t before) {
  Slot& s = slots_[i];
  const unsigned k = s.r.is_write ? 1 : 0;
  s.hnext = before;
  s.hprev = before == kNil ? hit_tail_[k] : slots_[before].hprev;
  (s.hprev == kNil ? hit_head_[k] : slots_[s.hprev].hnext) = i;
  (before == kNil ? hit_tail_[k] : slots_[before].hprev) = i;
}

inline void DramChannelModel::put(const DramRequest& r, std::uint32_t n) {
  if (r.bank >= nbanks_ || n - 1 >= room()) bad_enqueue(r);  // n = 0 wraps
  const std::uint32_t i = free_head_;
  Slot& s = slots_[i];  // hprev/hnext are set when it joins a hit list
  free_head_ = s.next;
  last_ = i;
  Bank& b = banks_[r.bank];
  const bool was_busy = b.queued != 0;
  const bool hit = b.open && b.row == r.row;
  s.r = r;
  s.n = n;
  s.seq = seq_++;
  s.prev = b.tail;
  s.next = kNil;
  (b.tail == kNil ? b.head : slots_[b.tail].next) = i;
  b.tail = i;
  count_ += n;
  b.queued += n;
  busy_[r.bank >> 6] |= std::uint64_t{1} << (r.bank & 63);
  if (hit) {
    (r.is_write ? b.hit_wr : b.hit_rd) += n;
    hits_[r.bank >> 6] |= std::uint64_t{1} << (r.bank & 63);
    hit_insert(i, kNil);  // the youngest request
  }
  if (stale_) return;
  // The cache: a bank's first request adds its next command; a later one changes it only by
  // being a row hit (a column command, earlier than or instead of the bank's PRE).
  if (!was_busy) {
    Cycle& m = column_bank(b) ? next_col_ : next_row_;
    m = std::min(m, bank_ready(b));
  } else if (hit) {
    // The bank's first hits (counted above): its PRE was on the row side, maybe the minimum.
    if (b.hit_rd + b.hit_wr == n && b.next_pre == next_row_) stale_ = true;
    // The bank's other hits are in the cache already: only the new one's kind is added.
    const Cycle c =
        r.is_write ? std::max(b.next_wr, next_wr_any_) : std::max(b.next_rd, next_rd_any_);
    next_col_ = std::min(next_col_, c);
  }
}

inline void DramChannelModel::extend(const DramRequest& r, std::uint32_t k) {
  Slot& s = slots_[last_];
  if (s.n == 0) return put_new(r, k);  // the run's entry has been taken: a new one
  // The precondition: the entry is the same run's (nothing was enqueued since).
  assert(s.r.id == r.id && s.r.bank == r.bank && s.r.row == r.row && s.r.is_write == r.is_write);
  if (k - 1 >= room()) bad_enqueue(r);
  // The requests join the run's entry, the youngest in its bank's list and, when a hit, in its
  // kind's hit list, as put() would append them. The bank is busy and, when they hit, already
  // has a hit of their kind: the cache changes only through their kind's column cycle.
  Bank& b = banks_[r.bank];
  s.n += k;  // their arrival numbers lie between the entry's and the next entry's
  count_ += k;
  b.queued += k;
  if (b.open && b.row == r.row) {
    (r.is_write ? b.hit_wr : b.hit_rd) += k;
    if (!stale_)
      next_col_ = std::min(next_col_, r.is_write ? std::max(b.next_wr, next_wr_any_)
                                                 : std::max(b.next_rd, next_rd_any_));
  }
}

inline void DramChannelModel::unlink(std::uint32_t i) {
  Slot& s = slots_[i];
  Bank& b = banks_[s.r.bank];
  (s.prev == kNil ? b.head : slots_[s.prev].next) = s.next;
  (s.next == kNil ? b.tail : slots_[s.next].prev) = s.prev;
  s.next = free_head_;
  free_head_ = i;
}

inline void DramChannelModel::hit_unlink(std::uint32_t i) {
  const Slot& s = slots_[i];
  const unsigned k = s.r.is_write ? 1 : 0;
  (s.hprev == kNil ? hit_head_[k] : slots_[s.hprev].hnext) = s.hnext;
  (s.hnext == kNil ? hit_tail_[k] : slots_[s.hnext].hprev) = s.hprev;
}

inline std::uint32_t DramChannelModel::first_ripe(unsigned k, Cycle now) const {
  for (std::uint32_t i = hit_head_[k]; i != kNil; i = slots_[i].hnext) {
    const Bank& b = banks_[slots_[i].r.bank];
    if ((k ? b.next_wr : b.next_rd) <= now) return i;
  }
  return kNil;
}

inline Cycle DramChannelModel::hit_ready(unsigned k, Cycle floor, std::uint32_t& at) const {
  Cycle m = kNever;
  for (std::uint32_t i = hit_head_[k]; i != kNil; i = slots_[i].hnext) {
    const Bank& b = banks_[slots_[i].r.bank];
    const Cycle c = k ? b.next_wr : b.next_rd;
    if (c <= floor) {
      at = i;  // the entries before it are later than floor
      return floor;
    }
    m = std::min(m, c);
  }
  at = kNil;
  return m;
}

template <class Col>
inline bool DramChannelModel::column_command(Cycle now, Col& on_column) {
  // The oldest legal hit of each kind (a bank's per-kind cycle stays fixed from its ACT on, so
  // the head of a list is legal unless its bank opened less than tRCD ago).
  std::uint32_t hit = next_hit_;
  if (next_hit_at_ != now) {
    const std::uint32_t rd_hit = next_rd_any_ <= now ? first_ripe(0, now) : kNil;
    const std::uint32_t wr_hit = next_wr_any_ <= now ? first_ripe(1, now) : kNil;
    hit = rd_hit;
    if (wr_hit != kNil && (hit == kNil || slots_[wr_hit].seq < slots_[hit].seq)) hit = wr_hit;
    if (hit == kNil) return false;  // not reached: next_col_ <= now promised one
  }
  const DramRequest& r = slots_[hit].r;
  const bool wr = r.is_write;
  Bank& b = banks_[r.bank];
  const bool row_hit = b.accessed_since_act;
  if (!wr) {
    b.next_pre = std::max(b.next_pre, now + rd_pre_);
    next_rd_any_ = std::max(next_rd_any_, now + col_gap_);
    next_wr_any_ = std::max(next_wr_any_, now + rd_to_wr_);
  } else {
    b.next_pre = std::max(b.next_pre, now + wr_pre_);
    next_wr_any_ = std::max(next_wr_any_, now + col_gap_);
    next_rd_any_ = std::max(next_rd_any_, now + wr_to_rd_);
  }
  row_hits_ += row_hit;
  b.accessed_since_act = true;
  const std::uint32_t bi = r.bank;
  --count_;
  if (--b.queued == 0) busy_[bi >> 6] &= ~(std::uint64_t{1} << (bi & 63));
  --(wr ? b.hit_wr : b.hit_rd);
  const bool still_col = b.hit_pending();
  if (!still_col) hits_[bi >> 6] &= ~(std::uint64_t{1} << (bi & 63));
  // The entry's next request (a run's) stays where this one was.
  if (--slots_[hit].n == 0) {
    hit_unlink(hit);
    unlink(hit);
  }
  // The cache: the column side from the hit lists as they are now; the row side changes only if
  // the issuing bank joined it (open, requests queued, none of them hits: its PRE). Each kind's
  // side is max(its list's earliest bank cycle, its channel-wide limit), both limits after now:
  // the kind with the earlier limit first, the other list scanned only if its limit is earlier
  // than that side's answer.
  const unsigned a = next_wr_any_ < next_rd_any_ ? 1 : 0;
  const Cycle fa = a ? next_wr_any_ : next_rd_any_, fb = a ? next_rd_any_ : next_wr_any_;
  std::uint32_t at;
  Cycle col = hit_ready(a, fa, at);
  // A command at fa takes `at` if only kind a may issue then (else both kinds are compared).
  next_hit_at_ = at != kNil && fa < fb ? fa : kNever;
  next_hit_ = at;
  if (fb < col) col = std::min(col, hit_ready(a ^ 1, fb, at));
  next_col_ = col;
  if (!still_col && b.queued) next_row_ = std::min(next_row_, b.next_pre);
  // Last, with the channel's state dead: the owner's work does not compete for its registers.
  // (An unlinked slot keeps its request until reused.)
  on_column(r, row_hit);
  return true;
}

}  // namespace locsim
