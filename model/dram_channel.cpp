#include "model/dram_channel.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace locsim {

void DramTiming::validate() const {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  if (!tCL || !tRP || !tRC || !tRAS || !tRCD || !tCCD || !burst_cycles)
    bad("DRAM timings tCL, tRP, tRC, tRAS, tRCD, tCCD and burst_cycles must be at least 1");
  if (tRAS > tRC)
    bad("tRAS (" + std::to_string(tRAS) + ") cannot exceed tRC (" + std::to_string(tRC) + ")");
}

DramChannelModel::DramChannelModel(const DramTiming& t, std::uint32_t banks,
                                   std::uint32_t queue_capacity)
    : banks_(banks),
      busy_((banks + 63) / 64, 0),
      hits_((banks + 63) / 64, 0),
      slots_(queue_capacity + 1),
      capacity_(queue_capacity),
      t_(t) {
  t_.validate();
  nbanks_ = banks;
  rd_done_ = t_.tCL + t_.burst_cycles;
  wr_done_ = t_.tWL + t_.burst_cycles;
  rd_pre_ = t_.burst_cycles;
  wr_pre_ = wr_done_ + t_.tWR;
  col_gap_ = std::max(t_.tCCD, t_.burst_cycles);
  // A write's data may start only tRTW after the read data left the bus (and tCCD after it).
  const auto rtw = static_cast<std::int64_t>(rd_done_ + t_.tRTW) - t_.tWL;
  rd_to_wr_ = static_cast<Cycle>(std::max<std::int64_t>(t_.tCCD, rtw));
  // tWTR runs from the end of the write data to the next RD command.
  wr_to_rd_ = std::max<Cycle>(t_.tCCD, wr_done_ + t_.tWTR);
  if (!banks || !queue_capacity)
    throw std::invalid_argument("DRAM channel needs banks and a queue");
  // The free slots, first to be used first: 0, 1, ...
  for (std::uint32_t i = 0; i < queue_capacity; ++i)
    slots_[i].next = i + 1 < queue_capacity ? i + 1 : kNil;
  free_head_ = 0;
  last_ = queue_capacity;
}

void DramChannelModel::bad_enqueue(const DramRequest& r) const {
  if (r.bank >= banks_.size())
    throw std::out_of_range("DRAM request for bank " + std::to_string(r.bank) + " of " +
                            std::to_string(banks_.size()));
  throw std::logic_error("DRAM requests enqueued into a full queue (or none)");
}

void DramChannelModel::refresh() const {
  Cycle col = kNever, row = kNever;
  for_each_busy_bank([&](const Bank& b) {
    Cycle& m = column_bank(b) ? col : row;
    m = std::min(m, bank_ready(b));
    return false;
  });
  next_col_ = col;
  next_row_ = row;
  stale_ = false;
}

namespace {
// The two smallest of a set of per-bank cycles, and the bank of the smallest: the minimum over
// all banks but one is then known without another pass.
struct Min2 {
  Cycle first = DramChannelModel::kNever, second = DramChannelModel::kNever;
  std::uint32_t bank = ~std::uint32_t{0};
  void add(Cycle c, std::uint32_t b) {
    if (c < first) {
      second = first;
      first = c;
      bank = b;
    } else if (c < second) {
      second = c;
    }
  }
  Cycle without(std::uint32_t b) const { return b == bank ? second : first; }
};
}  // namespace

bool DramChannelModel::row_command(Cycle now, DramCommand& cmd) {
  // No column command is legal now. The banks without queued row hits, each with its oldest
  // request: a closed bank's ACT, an open one's PRE. The same pass gathers per kind the banks'
  // own earliest cycles (before the channel-wide limit), from which next_row_ is rebuilt.
  Min2 act_min, pre_min;
  std::uint32_t row = kNil;
  std::uint64_t row_seq = ~std::uint64_t{0};
  for (std::size_t k = 0; k < busy_.size(); ++k)
    for (std::uint64_t m = busy_[k] & ~hits_[k]; m; m &= m - 1) {
      const auto bi =
          static_cast<std::uint32_t>(k * 64 + static_cast<unsigned>(__builtin_ctzll(m)));
      const Bank& b = banks_[bi];
      const Cycle c = b.open ? b.next_pre : b.next_act;
      (b.open ? pre_min : act_min).add(c, bi);
      if (slots_[b.head].seq < row_seq && (b.open ? c : std::max(c, next_act_any_)) <= now) {
        row = b.head;
        row_seq = slots_[b.head].seq;
      }
    }
  if (row == kNil) return false;  // not reached: next_row_ <= now promised one
  const DramRequest& r = slots_[row].r;
  const std::uint32_t bank = r.bank;
  Bank& b = banks_[bank];
  Cycle act = act_min.without(bank), pre = pre_min.without(bank);
  if (b.open) {
    b.open = false;
    b.next_act = std::max(b.next_act, now + t_.tRP);
    ++precharges_;
    cmd = DramCommand{DramCommandType::Precharge, bank, b.row, now, 0, false, 0};
    act = std::min(act, b.next_act);  // the bank waits for its ACT now
  } else {
    b.open = true;
    b.row = r.row;
    b.accessed_since_act = false;
    b.next_act = now + t_.tRC;
    b.next_pre = now + t_.tRAS;
    b.next_rd = b.next_wr = now + t_.tRCD;
    next_act_any_ = now + t_.tRRD;
    // The requests of this bank that hit the row just opened (a bank was closed: none did) join
    // the hit lists, merged by arrival number (the bank's list is in arrival order).
    next_hit_at_ = kNever;  // a joining hit may precede it or be ripe first
    std::uint32_t at[2] = {hit_head_[0], hit_head_[1]};
    for (std::uint32_t o = b.head; o != kNil; o = slots_[o].next) {
      const Slot& s = slots_[o];
      if (s.r.row != b.row) continue;
      const unsigned kind = s.r.is_write ? 1 : 0;
      (kind ? b.hit_wr : b.hit_rd) += s.n;
      std::uint32_t& p = at[kind];
      while (p != kNil && slots_[p].seq < s.seq) p = slots_[p].hnext;
      hit_insert(o, p);
    }
    ++activates_;
    cmd = DramCommand{DramCommandType::Activate, bank, r.row, now, 0, false, 0};
    if (b.hit_pending()) {
      hits_[bank >> 6] |= std::uint64_t{1} << (bank & 63);
      next_col_ = std::min(next_col_, bank_ready(b));  // it joined the column side
    } else {
      pre = std::min(pre, b.next_pre);  // no queued request hits the row it opened
    }
  }
  // The cache: the other banks' cycles gathered above, the issuing bank's new one if it stays on
  // the row side, and the channel-wide limit as it is now (max distributes over min). The column
  // side changes only through the issuing bank.
  next_row_ = std::min(std::max(act, next_act_any_), pre);
  stale_ = false;
  return true;
}

}  // namespace locsim
