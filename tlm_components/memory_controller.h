// One memory partition's controller: decodes each request's address (channel-local bank, row,
// column), splits it into DRAM atoms (one column access each), schedules them FR-FCFS on a
// DramChannelModel with GDDR5 timing, and answers when the last atom's data has crossed the bus.
// The backing store is a sparse functional memory (data-integrity mode only).
#pragma once
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <array>
#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <utility>
#include <vector>

#include "model/address_map.h"
#include "model/completion_queue.h"
#include "model/dram_channel.h"
#include "model/functional_memory.h"
#include "model/ring_buffer.h"
#include "model/tag_array.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/sim_context.h"

namespace locsim {

struct MemoryControllerConfig {
  std::uint32_t channel = 0;
  std::uint32_t sources = 2;  // L2 sub-partitions bound to `in`
  DramTiming timing;
  std::uint32_t queue = 32;       // DRAM atoms waiting for the scheduler
  std::uint32_t atom_bytes = 64;  // bytes per column access (burst)
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 32;
  // Fixed delays in DRAM command cycles (docs/architecture.md, "L2 and DRAM latency"). GTX480:
  // GPGPU-Sim's -dram_latency 100 (700 MHz core cycles) = 132 cycles at 924 MHz, all of it in
  // front of the scheduler as in GPGPU-Sim; no separate PHY delay.
  std::uint32_t controller_latency = 132;  // acceptance -> visible to the scheduler
  std::uint32_t phy_latency = 0;           // last data beat on the bus -> response
  // Separate row and column command buses (HBM): one ACT/PRE and one RD/WR per cycle.
  bool dual_command_bus = false;
  // Which held request (one per L2 sub-partition) takes freed front-end space first. false:
  // source 0, then 1, ... every time (a source with a backlog can starve the later ones); true:
  // the source after the one last accepted, the round robin of GPGPU-Sim's memory partition
  // between its sub-partitions (memory_partition_unit::dram_cycle, last borrower + 1).
  bool round_robin_sources = true;
  double clock_hz = 924e6;  // DRAM command clock
};

class MemoryController : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<MemoryController> in;

  // `map` (the platform's address map) must outlive the controller.
  MemoryController(sc_core::sc_module_name name, const MemoryControllerConfig& cfg,
                   const AddressMap& map, SimContext& ctx, FunctionalMemory* backing);
  // Whether source s's link is direct (a locsim port at the other end, at_ports.h).
  bool linked(std::uint32_t s) const { return ports_[s]->linked(); }

 private:
  // The binders of `in` call nb_fw(s) for binding s, which only forwards to ports_[s].
  void end_of_elaboration() override {
    auto& binders = static_cast<tlm_utils::multi_target_base_if<>&>(in).get_binders();
    for (std::size_t s = 0; s < binders.size() && s < ports_.size(); ++s)
      ports_[s]->reachable_by(binders[s]);
  }
  void start_of_simulation() override {
    for (std::size_t s = 0; s < in.size() && s < ports_.size(); ++s)
      ports_[s]->link(in[static_cast<int>(s)]);
  }
  struct Pending {
    Payload* gp = nullptr;
    std::uint32_t source = 0;
    std::uint32_t atoms_left = 0;
    Cycle arrival = 0;
  };
  // kDirect: no front end (cfg_.controller_latency == 0), chosen at construction.
  template <bool kDirect>
  bool on_request(std::uint32_t src, Payload& gp);
  bool offer(std::uint32_t src, Payload& gp) {
    return cfg_.controller_latency == 0 ? on_request<true>(src, gp) : on_request<false>(src, gp);
  }
  // The atoms (bit a: atom a of the line) that hold a sector of `sectors`.
  std::uint32_t atom_mask_of(std::uint32_t sectors) const;
  // One run; kDual: two command buses (cfg_.dual_command_bus, chosen at construction: the
  // test is not made per run).
  template <bool kDual>
  void schedule_method();
  // The next run's cycle: the earliest of the next command, the next completion and (a front-end
  // head blocked by a full scheduler queue moves when a column command frees a slot) the front
  // end's head, but after now (one max for all: max(min) is min(max) for one floor). An empty
  // front end's or completion queue's cycle is ~0: kNever when nothing is due.
  [[gnu::always_inline]] Cycle next_run(Cycle now) const {
    Cycle next = std::min(dram_.next_command_cycle(0), done_.next_cycle());
    if (dram_.can_accept()) next = std::min(next, front_ready_);
    return std::max(next, now + 1);
  }
  // Count a command schedule_method issued: an ACT or PRE, and a RD or WR (a queue slot freed;
  // its request complete with its last atom).
  void issued(const DramCommand& cmd);
  void column_issued(std::uint64_t id, bool row_hit, bool wr, Cycle now);
  // Answers the requests complete by now that wait for their channels (the usual single one is
  // answered by schedule_method itself).
  void respond_ready(Cycle now);
  // Sends request id's response to source s (its channel free).
  void answer(std::uint32_t s, std::uint32_t id, Cycle now);

  tlm::tlm_sync_enum nb_fw(int id, Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return ports_[id]->on_fw(gp, ph, d);
  }
  void b_transport(int id, Payload& gp, sc_core::sc_time& d);
  unsigned int transport_dbg(int id, Payload& gp);

  MemoryControllerConfig cfg_;
  SimContext& ctx_;
  FunctionalMemory* backing_;
  ClockDomain clk_;
  std::uint64_t ps_;  // clk_'s period in ps
  const AddressMap& map_;
  DramChannelModel dram_;
  std::vector<std::unique_ptr<TargetPort>> ports_;
  std::vector<Pending> pending_;  // accepted requests, indexed by id (a reused slot)
  // The free slots of pending_, last freed first, linked through their atoms_left (kNoId: none).
  static constexpr std::uint32_t kNoId = ~std::uint32_t{0};
  std::uint32_t free_head_ = kNoId;
  // Request ids whose data is complete, by completion cycle (commands issue in cycle order, so
  // the completions arrive almost sorted).
  CompletionQueue<std::uint32_t> done_;
  // Atoms in the controller's front end, in acceptance (hence ready) order, as runs of atoms
  // that differ only in their columns (consecutive atoms of one interleave chunk: the same bank
  // and row): r is the run's first atom, n its atoms. An atom's arrival is the cycle it leaves
  // the front end. A run enters the scheduler queue in one enqueue_run() (in part if the queue
  // has less room, the rest by extend()).
  struct FrontRun {
    DramRequest r;
    std::uint32_t n;
    bool part_queued = false;  // its first atoms are in the scheduler queue
  };
  RingBuffer<FrontRun> front_;
  std::uint32_t front_atoms_ = 0;  // atoms in front_
  Cycle front_ready_ = ~Cycle{0};  // the front end's head's arrival, ~0 if empty
  // Queues the run f (into the front end, or without one into the scheduler queue).
  void push_run(const FrontRun& f, bool direct);
  // The bank, row and column of address a (baseline: no range mappers, the channel is this
  // controller's).
  DramCell decode(Addr a, bool baseline) const;
  // on_request's other cases, out of line: the atoms of atom_mask (line address base) as runs of
  // consecutive atoms, f being the first atom's (one_chunk: all in one interleave chunk).
  [[gnu::noinline]] void push_atoms(FrontRun f, std::uint32_t atom_mask, Addr base, bool one_chunk,
                                    bool direct);
  // Per source, the ids of complete requests waiting for its response channel (oldest at head).
  struct Waiting {
    std::vector<std::uint32_t> ids;
    std::size_t head = 0;
  };
  std::vector<Waiting> ready_;
  std::size_t waiting_ = 0;  // ids in ready_
  // Per source, the atoms of the request its port holds because on_request refused it (0: none);
  // and how many sources hold one.
  std::vector<std::uint8_t> refused_;
  std::uint32_t holding_ = 0;
  // At most the smallest refused_ of a holding source (~0 when none): the retry loop is skipped
  // when that many atoms do not fit. Lowered at a refusal, rebuilt by each retry pass.
  std::uint32_t held_min_ = ~0u;
  // Whether n more atoms fit (the scheduler queue without a front end, else the front end).
  template <bool kDirect>
  bool room_for(std::uint32_t n) const {
    return kDirect ? dram_.queued() + n <= cfg_.queue
                   : front_atoms_ + n <= std::max<std::size_t>(cfg_.controller_latency, n);
  }
  bool room_for(std::uint32_t n) const {
    return cfg_.controller_latency == 0 ? room_for<true>(n) : room_for<false>(n);
  }
  // Sectors per DRAM atom, and a mask of that many sector bits.
  std::uint32_t sectors_per_atom_, atom_sectors_;
  // The cycle of the run asked for, ~0 if none: ev_'s pending time in cycles (cleared with it
  // when the run starts), so that a run knows its cycle without reading the time.
  Cycle wake_at_ = ~Cycle{0};
  // A run at cycle c's edge (c after the current cycle, or the current one for another pass),
  // unless an earlier one is asked for; kNever: none.
  void wake(Cycle c) {
    if (c >= wake_at_) return;
    wake_at_ = c;
    ev_.notify_at(c * ps_);
  }
  Cycle last_cmd_ = ~Cycle{0};
  DramCommand cmd_;  // issue()'s answer (a member: no default-initialised local per run)
  std::uint32_t last_source_ = 0;  // the source of the request accepted last (round robin)
  Activation ev_{Activation::Stage::kMemory};

  Counter &reads_, &writes_, &read_bytes_, &write_bytes_, &atoms_, &row_hits_, &activates_,
      &precharges_, &bus_cycles_;
  Distribution& latency_;
  // The atom mask of each sector mask below 256 (lines of up to 8 sectors: every platform's).
  // Last: a request reads one byte of it, and the state every run reads stays on fewer lines.
  std::array<std::uint8_t, 256> atoms_of_{};
};

// Parameters of the memory partitions (mem.*, dram.*, clock.dram), declared from
// AddressMapConfig's, DramTiming's and MemoryControllerConfig's defaults
// (memory_controller_params.cpp).
class ParamRegistry;
void declare_memory_params(ParamRegistry& p);
AddressMapConfig address_map_from_params(const ParamRegistry& p);
MemoryControllerConfig memory_controller_config_from_params(const ParamRegistry& p,
                                                            const CacheGeometry& l2);

}  // namespace locsim
