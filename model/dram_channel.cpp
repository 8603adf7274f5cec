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
    : t_(t),
      banks_(banks),
      busy_((banks + 63) / 64, 0),
      hits_((banks + 63) / 64, 0),
      slots_(queue_capacity),
      capacity_(queue_capacity) {
  t_.validate();
  if (!banks || !queue_capacity)
    throw std::invalid_argument("DRAM channel needs banks and a queue");
  for (std::uint32_t i = queue_capacity; i-- > 0;) free_.push_back(i);
}

void DramChannelModel::unlink(std::uint32_t i) {
  Slot& s = slots_[i];
  Bank& b = banks_[s.r.bank];
  (s.prev == kNil ? b.head : slots_[s.prev].next) = s.next;
  (s.next == kNil ? b.tail : slots_[s.next].prev) = s.prev;
  free_.push_back(i);
  --count_;
}

void DramChannelModel::bad_enqueue(const DramRequest& r) const {
  if (r.bank >= banks_.size())
    throw std::out_of_range("DRAM request for bank " + std::to_string(r.bank) + " of " +
                            std::to_string(banks_.size()));
  throw std::logic_error("DRAM request enqueued into a full queue");
}

void DramChannelModel::enqueue(const DramRequest& r) {
  if (r.bank >= banks_.size() || count_ == capacity_) bad_enqueue(r);
  const std::uint32_t i = free_.back();
  free_.pop_back();
  Bank& b = banks_[r.bank];
  const bool was_busy = b.queued != 0;
  const bool had_hit = b.hit_pending();
  const bool hit = b.open && b.row == r.row;
  slots_[i] = Slot{r, seq_++, b.tail, kNil};
  (b.tail == kNil ? b.head : slots_[b.tail].next) = i;
  b.tail = i;
  ++count_;
  ++b.queued;
  busy_[r.bank >> 6] |= std::uint64_t{1} << (r.bank & 63);
  if (hit) {
    ++(r.is_write ? b.hit_wr : b.hit_rd);
    hits_[r.bank >> 6] |= std::uint64_t{1} << (r.bank & 63);
  }
  if (stale_) return;
  // The cache: a bank's first request adds its next command; a later one changes it only by
  // being a row hit (a column command, earlier than or instead of the bank's PRE).
  if (!was_busy) {
    Cycle& m = column_bank(b) ? next_col_ : next_row_;
    m = std::min(m, bank_ready(b));
  } else if (hit) {
    if (!had_hit && b.next_pre == next_row_) stale_ = true;  // the bank's PRE was the minimum
    next_col_ = std::min(next_col_, bank_ready(b));
  }
}

Cycle DramChannelModel::bank_ready(const Bank& b) const {
  if (!b.open) return std::max(b.next_act, next_act_any_);
  if (!b.hit_pending()) return b.next_pre;
  // FR-FCFS does not close a row that queued requests still hit.
  Cycle c = kNever;
  if (b.hit_rd) c = std::max(b.next_rd, next_rd_any_);
  if (b.hit_wr) c = std::min(c, std::max(b.next_wr, next_wr_any_));
  return c;
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

bool DramChannelModel::choose(Cycle now, DramCommand& cmd, DramBus bus) {
  // FR-FCFS: the oldest row hit whose column command is legal now, else the oldest request whose
  // ACT or PRE is legal now. Per bank with queued requests: its oldest candidate of each kind.
  // With the cache up to date only the banks of the kind of command that issues are visited (a
  // column command whenever one can issue: row hits go first); the other kind's cached cycle
  // changes only through the issuing bank. Otherwise every busy bank is.
  bool col_pass = true, row_pass = true;
  if (!stale_) {
    col_pass = bus != DramBus::Row && next_col_ <= now;
    row_pass = !col_pass && bus != DramBus::Column && next_row_ <= now;
    if (!col_pass && !row_pass) return false;
  }
  // The same pass gathers, per kind of command, the banks' own earliest cycles (before the
  // channel-wide limits), from which the cache is rebuilt after the command.
  Min2 rd_min, wr_min, act_min, pre_min;
  std::uint32_t hit = kNil, row = kNil;
  std::uint64_t hit_seq = ~std::uint64_t{0}, row_seq = ~std::uint64_t{0};
  for (std::size_t k = 0; k < busy_.size(); ++k) {
    const std::uint64_t visit = col_pass && row_pass ? busy_[k]
                                : col_pass           ? hits_[k]
                                                     : busy_[k] & ~hits_[k];
    for (std::uint64_t m = visit; m; m &= m - 1) {
      const auto bi =
          static_cast<std::uint32_t>(k * 64 + static_cast<unsigned>(__builtin_ctzll(m)));
      const Bank& b = banks_[bi];
      if (b.open && b.hit_pending()) {
        // FR-FCFS does not close a row that queued requests still hit.
        const Cycle rk = b.hit_rd ? b.next_rd : kNever;
        const Cycle wk = b.hit_wr ? b.next_wr : kNever;
        rd_min.add(rk, bi);
        wr_min.add(wk, bi);
        if (bus == DramBus::Row) continue;
        const bool rd = b.hit_rd && std::max(rk, next_rd_any_) <= now;
        const bool wr = b.hit_wr && std::max(wk, next_wr_any_) <= now;
        if (!rd && !wr) continue;
        for (std::uint32_t i = b.head; i != kNil; i = slots_[i].next) {
          const Slot& s = slots_[i];
          if (s.seq > hit_seq) break;  // an older hit of another bank goes first
          if (s.r.row == b.row && (s.r.is_write ? wr : rd)) {
            hit = i;
            hit_seq = s.seq;
            break;
          }
        }
      } else {
        // A closed bank (ACT) or an open one no queued request hits (PRE): its oldest request.
        const Cycle c = b.open ? b.next_pre : b.next_act;
        (b.open ? pre_min : act_min).add(c, bi);
        if (bus != DramBus::Column && slots_[b.head].seq < row_seq &&
            (b.open ? c : std::max(c, next_act_any_)) <= now) {
          row = b.head;
          row_seq = slots_[b.head].seq;
        }
      }
    }
  }
  std::uint32_t bank;  // the bank of the command issued
  if (hit != kNil) {
    const DramRequest& r = slots_[hit].r;
    const bool wr = r.is_write;
    bank = r.bank;
    Bank& b = banks_[r.bank];
    const DramCommandType t = wr ? DramCommandType::Write : DramCommandType::Read;
    cmd = DramCommand{t, r.bank, r.row, now, r.id, b.accessed_since_act, 0};
    const Cycle data_start = now + (wr ? t_.tWL : t_.tCL);
    cmd.data_done = data_start + t_.burst_cycles;
    const Cycle bus_free = cmd.data_done;
    if (!wr) {
      b.next_pre = std::max(b.next_pre, now + t_.burst_cycles);
      next_rd_any_ = std::max(next_rd_any_, now + std::max(t_.tCCD, t_.burst_cycles));
      // The write's data may start only after the read data left the bus plus turnaround.
      const Cycle wrc = bus_free + t_.tRTW > t_.tWL ? bus_free + t_.tRTW - t_.tWL : 0;
      next_wr_any_ = std::max({next_wr_any_, now + t_.tCCD, wrc});
    } else {
      b.next_pre = std::max(b.next_pre, bus_free + t_.tWR);
      next_wr_any_ = std::max(next_wr_any_, now + std::max(t_.tCCD, t_.burst_cycles));
      // tWTR runs from the end of the write data to the next RD command.
      next_rd_any_ = std::max({next_rd_any_, now + t_.tCCD, bus_free + t_.tWTR});
    }
    if (cmd.row_hit) ++row_hits_;
    b.accessed_since_act = true;
    if (--b.queued == 0) busy_[r.bank >> 6] &= ~(std::uint64_t{1} << (r.bank & 63));
    --(wr ? b.hit_wr : b.hit_rd);
    if (!b.hit_pending()) hits_[r.bank >> 6] &= ~(std::uint64_t{1} << (r.bank & 63));
    unlink(hit);
  } else if (row != kNil) {
    const DramRequest& r = slots_[row].r;
    bank = r.bank;
    Bank& b = banks_[r.bank];
    if (b.open) {
      b.open = false;
      b.next_act = std::max(b.next_act, now + t_.tRP);
      ++precharges_;
      cmd = DramCommand{DramCommandType::Precharge, r.bank, b.row, now, 0, false, 0};
    } else {
      b.open = true;
      b.row = r.row;
      b.accessed_since_act = false;
      b.next_act = now + t_.tRC;
      b.next_pre = now + t_.tRAS;
      b.next_rd = b.next_wr = now + t_.tRCD;
      next_act_any_ = now + t_.tRRD;
      // The requests of this bank that hit the row just opened (a bank was closed: none did).
      for (std::uint32_t o = b.head; o != kNil; o = slots_[o].next) {
        const DramRequest& q = slots_[o].r;
        if (q.row == b.row) ++(q.is_write ? b.hit_wr : b.hit_rd);
      }
      if (b.hit_pending()) hits_[r.bank >> 6] |= std::uint64_t{1} << (r.bank & 63);
      ++activates_;
      cmd = DramCommand{DramCommandType::Activate, r.bank, r.row, now, 0, false, 0};
    }
  } else {
    bank = kNil;  // nothing issued: the pass saw every busy bank as it is
  }
  // The cache: for each kind of command visited, the other banks' cycles gathered above, the
  // issuing bank's new ones and the channel-wide limits as they are now (max distributes over
  // min); for a kind not visited, its cycle so far (a command of the other kind changes neither
  // its banks nor its limits) and the issuing bank's if it joined that kind.
  Cycle rd = rd_min.without(bank), wr = wr_min.without(bank);
  Cycle act = act_min.without(bank), pre = pre_min.without(bank);
  bool issuer_col = false, issuer_row = false;
  Cycle issuer = kNever;
  if (bank != kNil && banks_[bank].queued) {
    const Bank& b = banks_[bank];
    issuer = bank_ready(b);
    if (!b.open) {
      act = std::min(act, b.next_act);
      issuer_row = true;
    } else if (!b.hit_pending()) {
      pre = std::min(pre, b.next_pre);
      issuer_row = true;
    } else {
      if (b.hit_rd) rd = std::min(rd, b.next_rd);
      if (b.hit_wr) wr = std::min(wr, b.next_wr);
      issuer_col = true;
    }
  }
  if (col_pass)
    next_col_ = std::min(std::max(rd, next_rd_any_), std::max(wr, next_wr_any_));
  else if (issuer_col)
    next_col_ = std::min(next_col_, issuer);
  if (row_pass)
    next_row_ = std::min(std::max(act, next_act_any_), pre);
  else if (issuer_row)
    next_row_ = std::min(next_row_, issuer);
  stale_ = false;
  return bank != kNil;
}

}  // namespace locsim
