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
    : t_(t), banks_(banks), busy_((banks + 63) / 64, 0), capacity_(queue_capacity) {
  t_.validate();
  if (!banks || !queue_capacity)
    throw std::invalid_argument("DRAM channel needs banks and a queue");
}

void DramChannelModel::enqueue(const DramRequest& r) {
  if (r.bank >= banks_.size())
    throw std::out_of_range("DRAM request for bank " + std::to_string(r.bank) + " of " +
                            std::to_string(banks_.size()));
  queue_.push_back(r);
  Bank& b = banks_[r.bank];
  ++b.queued;
  busy_[r.bank >> 6] |= std::uint64_t{1} << (r.bank & 63);
  if (b.open && b.row == r.row) ++(r.is_write ? b.hit_wr : b.hit_rd);
}

// Earliest legal cycle for the command request r needs next, given the state now.
Cycle DramChannelModel::ready_cycle(const DramRequest& r, DramCommandType& type) const {
  const Bank& b = banks_[r.bank];
  if (b.open && b.row == r.row) {
    type = r.is_write ? DramCommandType::Write : DramCommandType::Read;
    return r.is_write ? std::max(b.next_wr, next_wr_any_) : std::max(b.next_rd, next_rd_any_);
  }
  if (b.open) {
    type = DramCommandType::Precharge;
    return b.next_pre;
  }
  type = DramCommandType::Activate;
  return std::max(b.next_act, next_act_any_);
}

Cycle DramChannelModel::bank_next(const Bank& b, Cycle now) const {
  Cycle c = kNever;
  if (!b.open) {
    c = std::max(b.next_act, next_act_any_);
  } else if (b.hit_pending()) {
    // FR-FCFS does not close a row that queued requests still hit.
    if (b.hit_rd) c = std::max(b.next_rd, next_rd_any_);
    if (b.hit_wr) c = std::min(c, std::max(b.next_wr, next_wr_any_));
  } else {
    c = b.next_pre;
  }
  return std::max(c, now);
}

Cycle DramChannelModel::next_command_cycle(Cycle now) const {
  // The minimum over the queued requests of their next command's cycle, taken per bank (all
  // requests of a bank that need the same command share its ready cycle).
  Cycle best = kNever;
  for_each_busy_bank([&](const Bank& b) {
    best = std::min(best, bank_next(b, now));
    return best == now;  // cannot get earlier
  });
  return best;
}

bool DramChannelModel::issue(Cycle now, DramCommand& cmd, DramBus bus) {
  // Which kinds of command some bank can issue now (per-bank counts): the queue scans below
  // (which pick the oldest request) run only when they will find one.
  bool hit_ready = false, other_ready = false;
  for_each_busy_bank([&](const Bank& b) {
    if (b.open && b.hit_pending()) {
      if ((b.hit_rd && std::max(b.next_rd, next_rd_any_) <= now) ||
          (b.hit_wr && std::max(b.next_wr, next_wr_any_) <= now)) {
        hit_ready = true;
        return bus != DramBus::Row;  // a row command is still wanted: keep looking
      }
    } else if (bank_next(b, now) <= now) {
      other_ready = true;
    }
    return false;
  });
  if (bus == DramBus::Column) other_ready = false;
  if (bus == DramBus::Row) hit_ready = false;
  if (!hit_ready && !other_ready) return false;
  // First ready: the oldest row hit whose column command is legal now.
  for (auto it = queue_.begin(); hit_ready && it != queue_.end(); ++it) {
    DramCommandType t;
    if (ready_cycle(*it, t) > now) continue;
    if (t != DramCommandType::Read && t != DramCommandType::Write) continue;
    Bank& b = banks_[it->bank];
    cmd = DramCommand{t, it->bank, it->row, now, it->id, b.accessed_since_act, 0};
    const Cycle data_start = now + (t == DramCommandType::Read ? t_.tCL : t_.tWL);
    cmd.data_done = data_start + t_.burst_cycles;
    const Cycle bus_free = cmd.data_done;
    if (t == DramCommandType::Read) {
      b.next_pre = std::max(b.next_pre, now + t_.burst_cycles);
      next_rd_any_ = std::max(next_rd_any_, now + std::max(t_.tCCD, t_.burst_cycles));
      // The write's data may start only after the read data left the bus plus turnaround.
      const Cycle wr = bus_free + t_.tRTW > t_.tWL ? bus_free + t_.tRTW - t_.tWL : 0;
      next_wr_any_ = std::max({next_wr_any_, now + t_.tCCD, wr});
    } else {
      b.next_pre = std::max(b.next_pre, bus_free + t_.tWR);
      next_wr_any_ = std::max(next_wr_any_, now + std::max(t_.tCCD, t_.burst_cycles));
      // tWTR runs from the end of the write data to the next RD command.
      next_rd_any_ = std::max({next_rd_any_, now + t_.tCCD, bus_free + t_.tWTR});
    }
    if (cmd.row_hit) ++row_hits_;
    b.accessed_since_act = true;
    if (--b.queued == 0) busy_[it->bank >> 6] &= ~(std::uint64_t{1} << (it->bank & 63));
    --(t == DramCommandType::Write ? b.hit_wr : b.hit_rd);
    queue_.erase(it);
    return true;
  }
  // Otherwise the oldest request gets the ACT or PRE it needs, if legal now.
  if (bus == DramBus::Column) return false;
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    DramCommandType t;
    if (ready_cycle(*it, t) > now) continue;
    Bank& b = banks_[it->bank];
    if (t == DramCommandType::Precharge) {
      if (b.hit_pending()) continue;
      b.open = false;
      b.next_act = std::max(b.next_act, now + t_.tRP);
      ++precharges_;
      cmd = DramCommand{t, it->bank, b.row, now, 0, false, 0};
      return true;
    }
    if (t == DramCommandType::Activate) {
      b.open = true;
      b.row = it->row;
      b.accessed_since_act = false;
      b.next_act = now + t_.tRC;
      b.next_pre = now + t_.tRAS;
      b.next_rd = b.next_wr = now + t_.tRCD;
      next_act_any_ = now + t_.tRRD;
      // The requests of this bank that hit the row just opened (a bank was closed: none did).
      for (const DramRequest& o : queue_)
        if (o.bank == it->bank && o.row == b.row) ++(o.is_write ? b.hit_wr : b.hit_rd);
      ++activates_;
      cmd = DramCommand{t, it->bank, it->row, now, 0, false, 0};
      return true;
    }
  }
  return false;
}

}  // namespace locsim
