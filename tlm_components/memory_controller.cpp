#include "tlm_components/memory_controller.h"

#include <algorithm>
#include <cassert>

namespace locsim {

MemoryController::MemoryController(sc_core::sc_module_name name, const MemoryControllerConfig& cfg,
                                   const AddressMap& map, SimContext& ctx,
                                   FunctionalMemory* backing)
    : sc_module(name),
      in("in"),
      cfg_(cfg),
      ctx_(ctx),
      backing_(backing),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      ps_(clk_.period().value()),
      map_(map),
      dram_(cfg.timing, map.config().banks, cfg.queue),
      // Room for a full front end (at most controller_latency atoms): it never grows.
      front_(std::max(cfg.controller_latency, 1u)),
      ready_(cfg.sources),
      refused_(cfg.sources, 0),
      sectors_per_atom_(std::max(1u, cfg.atom_bytes / cfg.sector_bytes)),
      atom_sectors_(sectors_per_atom_ >= 32 ? ~0u : (1u << sectors_per_atom_) - 1),
#define MC_STAT(n, u, d) ctx.stats.counter(this->name(), "dram", n, u, d)
      reads_(MC_STAT("reads", "requests", "read requests (L2 fills)")),
      writes_(MC_STAT("writes", "requests", "write requests (L2 write-backs)")),
      read_bytes_(MC_STAT("read_bytes", "bytes", "bytes read from DRAM (whole atoms)")),
      write_bytes_(MC_STAT("write_bytes", "bytes", "bytes written to DRAM (whole atoms)")),
      atoms_(MC_STAT("column_accesses", "accesses", "RD/WR column commands issued")),
      row_hits_(MC_STAT("row_hits", "accesses", "column accesses to an already open row")),
      activates_(MC_STAT("activates", "commands", "ACT commands")),
      precharges_(MC_STAT("precharges", "commands", "PRE commands")),
      bus_cycles_(MC_STAT("data_bus_cycles", "DRAM cycles", "cycles the data bus carried data")),
#undef MC_STAT
      latency_(ctx.stats.distribution(this->name(), "dram", "latency", "DRAM cycles",
                                      "cycles from acceptance to the response (controller "
                                      "latency, DRAM timing and PHY latency)")) {
  for (std::uint32_t m = 0; m < atoms_of_.size(); ++m)
    atoms_of_[m] = static_cast<std::uint8_t>(atom_mask_of(m));
  atoms_of_[0] = 1;
  in.register_nb_transport_fw(this, &MemoryController::nb_fw);
  in.register_b_transport(this, &MemoryController::b_transport);
  in.register_transport_dbg(this, &MemoryController::transport_dbg);
  for (std::uint32_t s = 0; s < cfg.sources; ++s) {
    ports_.push_back(std::make_unique<TargetPort>("port"));
    // The request callback of the configuration's on_request (with or without a front end).
    auto bind = [this, s](auto request) {
      ports_.back()->bind(
          [this, s](Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
            return in[s]->nb_transport_bw(gp, ph, d);
          },
          request,
          // At the next edge, the run a notification now would reschedule to (every run is on
          // an edge: schedule_method does not test for one).
          [this]() { wake((sim_time().value() + ps_ - 1) / ps_); });
    };
    if (cfg.controller_latency == 0)
      bind([this, s](Payload& gp) { return on_request<true>(s, gp); });
    else
      bind([this, s](Payload& gp) { return on_request<false>(s, gp); });
  }
  if (cfg.dual_command_bus)
    ev_.bind<&MemoryController::schedule_method<true>>(
        this, std::string(this->name()) + ".schedule_method");
  else
    ev_.bind<&MemoryController::schedule_method<false>>(
        this, std::string(this->name()) + ".schedule_method");
}

std::uint32_t MemoryController::atom_mask_of(std::uint32_t sectors) const {
  std::uint32_t atoms = 0;
  for (unsigned a = 0, s = 0; s < 32 && (sectors >> s) != 0; ++a, s += sectors_per_atom_)
    if ((sectors >> s) & atom_sectors_) atoms |= 1u << a;
  return atoms;
}

template <bool kDirect>
bool MemoryController::on_request(std::uint32_t src, Payload& gp) {
  GpuExtension& e = gpu_ext(gp);
  // Atoms: the distinct atom_bytes chunks of the line that hold a requested sector.
  // (No sector: the first atom; atoms_of_[0] is 1.)
  std::uint32_t atom_mask =
      e.sector_mask < atoms_of_.size() ? atoms_of_[e.sector_mask] : atom_mask_of(e.sector_mask);
  const std::uint32_t n = static_cast<std::uint32_t>(__builtin_popcount(atom_mask));
  // Without a front-end delay the atoms go straight into the scheduler queue; the front end is a
  // pipeline that takes up to one atom per DRAM cycle (a peak the data bus cannot exceed), so it
  // holds at most controller_latency atoms. schedule_method retries a refused request.
  constexpr bool direct = kDirect;
  if (!room_for<kDirect>(n)) {
    if (!refused_[src]) ++holding_;  // the port holds it until schedule_method accepts it
    refused_[src] = static_cast<std::uint8_t>(n);
    held_min_ = std::min(held_min_, n);
    return false;
  }

  const Cycle now = (sim_time().value() + ps_ - 1) / ps_;  // the next edge (now's, on one)
  // A free slot of pending_ names the request (ids only link DRAM commands and completions
  // back to it; nothing is ordered by them).
  std::uint32_t id = free_head_;
  if (id == kNoId) {
    id = static_cast<std::uint32_t>(pending_.size());
    pending_.emplace_back();
  } else {
    free_head_ = pending_[id].atoms_left;
  }
  const bool wr = gp.is_write();
  const bool front_was_empty = front_.empty();
  // A run this cycle moves the front end's ready head into a slot a column command freed.
  const bool head_can_move = front_ready_ <= now && dram_.can_accept();
  pending_[id] = Pending{&gp, src, n, now};
  last_source_ = src;
  const Cycle ready = now + cfg_.controller_latency;
  const Addr base = gp.get_address();
  const auto first = static_cast<unsigned>(__builtin_ctz(atom_mask));
  const Addr lo = base + first * cfg_.atom_bytes,
             hi = base + (31u - static_cast<unsigned>(__builtin_clz(atom_mask))) * cfg_.atom_bytes;
  // Without range mappers, the atoms of one interleave chunk share the bank and row (their bits
  // lie above the chunk offset, which forms the column's low bits): one decode serves them all.
  // Without them the channel is this controller's: only the bank, row and column are needed.
  const bool baseline = map_.num_ranges() == 0;
  const bool one_chunk = baseline && (lo ^ hi) < map_.config().interleave_bytes;
  const DramCell c = decode(lo, baseline);
  const std::uint32_t m0 = atom_mask >> first;
  if (one_chunk && (m0 & (m0 + 1)) == 0) {
    // The usual case: consecutive atoms (the whole line), one run, built in its front-end entry.
    push_run(FrontRun{DramRequest{id, c.bank, c.row, c.column, wr, ready}, n}, direct);
  } else {
    push_atoms(FrontRun{DramRequest{id, c.bank, c.row, c.column, wr, ready}, 1}, atom_mask, base,
               one_chunk, direct);
  }
  if (front_was_empty && !direct) front_ready_ = ready;
  if (wr) {
    ++writes_;
    write_bytes_ += static_cast<std::uint64_t>(n) * cfg_.atom_bytes;
    // Posted into the backing store at acceptance; the response is the write's completion.
    if (backing_)
      backing_->write_masked(gp.get_address(), gp.get_data_ptr(), e.bytes, cfg_.line_bytes);
  } else {
    ++reads_;
    read_bytes_ += static_cast<std::uint64_t>(n) * cfg_.atom_bytes;
  }
  e.at(name());
  if (direct || head_can_move) {
    // The scheduler may issue for the new atoms this cycle, or (with a front end) a run this
    // cycle moves the head into the slot a column command of this cycle freed: the same run
    // an acceptance always asked for until here, whose timing the results depend on.
    wake(now);
  } else if (front_was_empty && dram_.can_accept()) {
    // The new atoms enter the scheduler queue when they leave the front end. Any other run
    // before then would find nothing to do: the front head's exit, and a full queue's next
    // column command, are already asked for by schedule_method.
    wake(now + cfg_.controller_latency);
  }
  return true;
}

namespace {
// Without a front end (no built-in platform) the atoms enter the scheduler queue at acceptance:
// out of line, so that on_request does not carry an inlined enqueue().
[[gnu::noinline]] void enqueue_direct(DramChannelModel& d, const DramRequest& r, std::uint32_t n,
                                      std::uint32_t column_step) {
  d.enqueue_run(r, n, column_step);
}
}  // namespace

inline DramCell MemoryController::decode(Addr a, bool baseline) const {
  if (baseline) return map_.cell(map_.baseline_local(a));
  const DramCoord d = map_.decode(a);
  return DramCell{d.bank, d.row, d.column};
}

void MemoryController::push_atoms(FrontRun f, std::uint32_t atom_mask, Addr base, bool one_chunk,
                                  bool direct) {
  const auto first = static_cast<unsigned>(__builtin_ctz(atom_mask));
  if (one_chunk) {
    // Each run of consecutive atoms goes as one run.
    const std::uint32_t column0 = f.r.column;
    for (std::uint32_t m = atom_mask >> first, a = 0; m;) {
      const auto skip = static_cast<unsigned>(__builtin_ctz(m));
      m >>= skip;
      a += skip;
      const auto len = ~m ? static_cast<unsigned>(__builtin_ctz(~m)) : 32u;
      f.r.column = column0 + a * cfg_.atom_bytes;
      f.n = len;
      push_run(f, direct);
      m = len < 32 ? m >> len : 0;
      a += len;
    }
  } else {
    const bool baseline = map_.num_ranges() == 0;
    for (std::uint32_t m = atom_mask; m; m &= m - 1) {  // the atoms, lowest first
      const auto a = static_cast<unsigned>(__builtin_ctz(m));
      if (a != first) {
        const DramCell d = decode(base + a * cfg_.atom_bytes, baseline);
        f.r.bank = d.bank;
        f.r.row = d.row;
        f.r.column = d.column;
      }
      push_run(f, direct);
    }
  }
}

inline void MemoryController::push_run(const FrontRun& f, bool direct) {
  if (direct) {
    enqueue_direct(dram_, f.r, f.n, cfg_.atom_bytes);
  } else {
    front_.push_back(f);
    front_atoms_ += f.n;
  }
}

template <bool kDual>
void MemoryController::schedule_method() {
  // The run's cycle is the one its wake-up asked for (no time read or division): every run is
  // asked for through wake(), at an edge.
  const Cycle now = wake_at_;
  assert(now * ps_ == sim_time().value());
  wake_at_ = DramChannelModel::kNever;  // as ev_'s pending time: a request for now is a new pass
  bool freed = false;                   // front-end space freed: held requests may enter
  while (front_ready_ <= now && dram_.can_accept()) {
    // The head run's atoms while the queue has room (as one atom at a time would).
    // (A full queue takes one atom per freed slot.)
    FrontRun& f = front_.front();
    const std::uint32_t k = std::min(f.n, dram_.room());
    if (f.part_queued)
      dram_.extend(f.r, k);
    else
      dram_.enqueue_run(f.r, k, cfg_.atom_bytes);
    front_atoms_ -= k;
    freed = true;
    if (k != f.n) {
      // The rest follows with nothing else queued in between (the front end is in order). f.r
      // keeps the first atom's column: the scheduler queue does not time by column.
      f.n -= k;
      f.part_queued = true;
      break;  // the queue is full
    }
    front_.pop_front();
    front_ready_ = front_.empty() ? ~Cycle{0} : front_.front().r.arrival;
  }
  if (now != last_cmd_) {
    last_cmd_ = now;
    DramCommand& cmd = cmd_;
    // One command per cycle, or with two command buses a column and a row command (the column
    // command is chosen first, as GPGPU-Sim's dual-bus scheduler does).
    // A Read/Write's result is taken straight from the channel (column_issued()); cmd holds
    // only an ACT/PRE.
    auto col = [this, now](const DramRequest& r, bool row_hit) {
      column_issued(r.id, row_hit, r.is_write, now);
    };
    auto row = [this](const DramCommand& c) { issued(c); };
    if constexpr (!kDual) {
      freed |= dram_.issue(now, cmd, DramBus::Any, col, row);
    } else {
      if (dram_.issue(now, cmd, DramBus::Column, col, row)) freed = true;
      if (dram_.issue_row_after_column(now, cmd)) issued(cmd);
    }
  }
  // room_for(n) is monotone in n: if the smallest held request does not fit, none does.
  if (holding_ && freed && room_for(held_min_)) {
    // Queue space may have freed: let held requests in (on_request refuses at once if not),
    // from source 0 or, round robin, from the source after the one accepted last.
    const auto n = static_cast<std::uint32_t>(ports_.size());
    std::uint32_t s = cfg_.round_robin_sources && last_source_ + 1 != n ? last_source_ + 1 : 0;
    // held_min_ rebuilt on the way: the requests still held when visited, and those refused
    // meanwhile (an END_REQ may bring a source's next request, which on_request counts).
    held_min_ = ~0u;
    for (std::uint32_t k = 0; k < n; ++k, s = s + 1 == n ? 0 : s + 1) {
      TargetPort& port = *ports_[s];
      if (!port.held_request()) continue;
      // A request that cannot fit is not offered again (on_request would refuse it at once).
      if (room_for(refused_[s]) && offer(s, *port.held_request())) {
        refused_[s] = 0;  // before END_REQ, which may bring the source's next request
        --holding_;
        port.accept_request();
      } else {
        held_min_ = std::min<std::uint32_t>(held_min_, refused_[s]);
      }
    }
  }
  if (waiting_ == 0 && !done_.ready(now)) {
    // The usual run, with nothing to answer: no test of waiting_ below.
    wake(next_run(now));  // kNever: no run
    return;
  }
  if (waiting_ == 0) {
    // The usual case, one request complete and none waiting: it is answered here if its
    // channel is free, as respond_ready's loop would.
    const std::uint32_t id = done_.pop();
    const std::uint32_t s = pending_[id].source;
    if (!done_.ready(now) && !ports_[s]->response_busy()) {
      answer(s, id, now);
    } else {
      ready_[s].ids.push_back(id);
      ++waiting_;
      respond_ready(now);
    }
  } else {
    respond_ready(now);
  }
  // The next cycle while responses wait.
  wake(waiting_ ? now + 1 : next_run(now));
}

inline void MemoryController::issued(const DramCommand& cmd) {
  // Row commands only (ACT, PRE): a column command's result goes to column_issued().
  ++(cmd.type == DramCommandType::Activate ? activates_ : precharges_);
}

inline void MemoryController::column_issued(std::uint64_t id, bool row_hit, bool wr, Cycle now) {
  ++atoms_;
  row_hits_ += row_hit;
  bus_cycles_ += cfg_.timing.burst_cycles;
  Pending& p = pending_[id];
  // The data cycle only for a request's last atom.
  if (--p.atoms_left == 0)
    done_.push(dram_.data_done(now, wr) + cfg_.phy_latency, static_cast<std::uint32_t>(id));
}

inline void MemoryController::answer(std::uint32_t s, std::uint32_t id, Cycle now) {
  Pending& p = pending_[id];
  Payload* gp = p.gp;
  latency_.sample(now - p.arrival);
  p.atoms_left = free_head_;  // the slot joins the free list
  free_head_ = id;
  if (backing_ && gp->is_read())
    backing_->read(gp->get_address(), gp->get_data_ptr(), cfg_.line_bytes);
  gp->set_response_status(tlm::TLM_OK_RESPONSE);
  ports_[s]->respond(*gp);
}

void MemoryController::respond_ready(Cycle now) {
  while (done_.ready(now)) {
    std::uint32_t id = done_.pop();
    ready_[pending_[id].source].ids.push_back(id);
    ++waiting_;
  }
  for (std::uint32_t s = 0; s < cfg_.sources; ++s) {
    auto& q = ready_[s];
    while (q.head != q.ids.size() && !ports_[s]->response_busy()) {
      const std::uint32_t id = q.ids[q.head++];
      --waiting_;
      answer(s, id, now);
    }
    if (q.head == q.ids.size()) {
      q.ids.clear();
      q.head = 0;
    }
  }
}

void MemoryController::b_transport(int id, Payload& gp, sc_core::sc_time& d) {
  transport_dbg(id, gp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  d += clk_.period() * static_cast<double>(cfg_.controller_latency + cfg_.timing.tRCD +
                                           cfg_.timing.tCL + cfg_.phy_latency);
}

unsigned int MemoryController::transport_dbg(int, Payload& gp) {
  const unsigned n = gp.get_data_length();
  if (gp.is_read()) {
    if (backing_)
      backing_->read(gp.get_address(), gp.get_data_ptr(), n);
    else
      for (unsigned i = 0; i < n; i += 4) {
        std::uint32_t w = initial_word((gp.get_address() + i) & ~Addr{3});
        for (unsigned b = 0; b < 4 && i + b < n; ++b)
          gp.get_data_ptr()[i + b] = static_cast<std::uint8_t>(w >> (8 * b));
      }
  } else if (backing_) {
    backing_->write(gp.get_address(), gp.get_data_ptr(), n);
  }
  return n;
}

}  // namespace locsim
