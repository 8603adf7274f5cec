#include "tlm_components/l2_cache_bank.h"

#include <algorithm>
#include <cstring>

namespace locsim {

namespace {
// A fill's tag also carries its line's tag-array frame (the bits above these two).
constexpr std::uintptr_t kFillTag = 1, kWritebackTag = 2;
// The shell's stall cause for a request refused because the input queue is full (the tag
// stage's causes are L2Fail values).
constexpr int kInputFull = 100;

// gpu_ext() forced inline for a pooled payload (every payload of a platform run): GCC's choice
// for gpu_ext() flipped with the size of the tag stage (a call from it and from each fill).
[[gnu::always_inline]] inline GpuExtension& ext_of(Payload& gp) {
  if (PooledPayload* p = as_pooled(gp)) return p->ext;
  return gpu_ext(gp);
}

}  // namespace

L2CacheBank::L2CacheBank(sc_core::sc_module_name name, const L2Config& cfg, SimContext& ctx,
                         const AddressMap* map)
    : CacheShell(name, cfg.clock_hz, "noc", "dram", true),
      ctx_(ctx),
      pipe_(cfg.miss_queue),
      miss_queue_(cfg.miss_queue),
      cfg_(cfg),
      data_(cfg.geometry, ctx.check_data),
      index_(map && cfg.bank_local_index ? std::make_unique<L2BankIndex>(*map) : nullptr),
      policy_(cfg.geometry, cfg.mshr_entries, cfg.mshr_max_merge, index_.get()),
#define L2_STAT(n, u, d) ctx.stats.counter(this->name(), "l2", n, u, d)
      accesses_(L2_STAT("accesses", "accesses", "loads, stores and atomics received")),
      hits_(L2_STAT("hits", "accesses", "accesses served without a DRAM access")),
      misses_(L2_STAT("misses", "accesses", "accesses that needed a line or sector allocation")),
      mshr_hits_(L2_STAT("mshr_hits", "accesses", "accesses merged into an in-flight fill")),
      rf_(L2_STAT("reservation_fails", "cycles", "cycles the input was stalled for a resource")),
      rf_line_(L2_STAT("rf_line_alloc", "cycles", "reservation failures: every way reserved")),
      rf_mshr_(L2_STAT("rf_mshr_entry", "cycles", "reservation failures: MSHR entries full")),
      rf_merge_(L2_STAT("rf_mshr_merge", "cycles",
                        "reservation failures: merge limit, or a sector a waiting store claims")),
      rf_mq_(L2_STAT("rf_miss_queue", "cycles", "reservation failures: queue to DRAM full")),
      input_full_(L2_STAT("input_full", "cycles",
                          "cycles the crossbar was refused: the input queue behind the ROP "
                          "stage was full")),
      writebacks_(L2_STAT("writebacks", "lines", "dirty lines written back to DRAM")),
      evictions_(L2_STAT("evictions", "lines", "valid lines displaced")),
      stores_(L2_STAT("stores", "accesses", "store requests")),
      atomics_(L2_STAT("atomics", "accesses", "atomic requests performed")),
      fills_(L2_STAT("fills", "lines", "fills received from DRAM"))
#undef L2_STAT
{
  direct_calls<L2CacheBank>();
  if (index_ && policy_.tags().linear_pow2()) {
    inline_index_map_ = map;
    const AddressMapConfig& mc = map->config();
    bank_local_ = BankLocalBaseline(mc.interleave_bytes, mc.channels, mc.subpartitions_per_channel);
  }
  down_ev_.bind<&L2CacheBank::down_method>(this, std::string(this->name()) + ".down_method");
  tag_ev_.bind<&L2CacheBank::tag_method>(this, std::string(this->name()) + ".tag_method");
}

void L2CacheBank::stalled(int cause, std::uint64_t cycles) {
  if (cause == kInputFull) {
    input_full_ += cycles;
    return;
  }
  rf_ += cycles;
  switch (static_cast<L2Fail>(cause)) {
    case L2Fail::LineAlloc:
      rf_line_ += cycles;
      break;
    case L2Fail::MshrEntry:
      rf_mshr_ += cycles;
      break;
    case L2Fail::MshrMerge:
      rf_merge_ += cycles;
      break;
    case L2Fail::MissQueue:
      rf_mq_ += cycles;
      break;
    case L2Fail::None:
      break;
  }
}

void L2CacheBank::down_method() {
  send_down_at(down_cycle_, down_cycle_);  // this run's cycle, at its edge (ask_down())
}

void L2CacheBank::perform_data(Payload& gp, const GpuExtension& e, Addr line, int way,
                               std::uint32_t set) {
  const CacheGeometry& g = policy_.tags().geometry();
  std::uint8_t* d = line_data(line);
  switch (e.kind) {
    case AccessKind::Load:
    case AccessKind::Prefetch:
      if (d) copy_masked(gp.get_data_ptr(), d, e.bytes, g.line_bytes);
      break;
    case AccessKind::Store:
      if (d) copy_masked(d, gp.get_data_ptr(), e.bytes, g.line_bytes);
      if (way >= 0)
        policy_.mark_written(set, way, e.bytes);
      else
        policy_.mark_written(line, e.bytes);
      break;
    case AccessKind::Atomic:
      for (unsigned w = 0; w < g.line_bytes / 4; ++w) {
        if (!e.word_count[w]) continue;
        if (d) {
          std::uint32_t old;
          std::memcpy(&old, d + 4 * w, 4);
          std::uint32_t nv = old + e.word_count[w];
          std::memcpy(d + 4 * w, &nv, 4);
          std::memcpy(gp.get_data_ptr() + 4 * w, &old, 4);
        }
      }
      if (way >= 0)
        policy_.mark_written(set, way, e.bytes);
      else
        policy_.mark_written(line, e.bytes);
      break;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

namespace {
// A fill's or a write-back's pooled payload for one whole line, with the fields
// allocate_request() leaves to its creator that both kinds share written once, straight into the
// payload (a Request built on the stack and copied cost about 25 more per fill); the caller
// writes the rest of the extension. A pooled payload: its extension without a type test.
[[gnu::always_inline]] inline GpuExtension& line_request(PayloadPool& pool, Payload*& p,
                                                         tlm::tlm_command cmd, Addr line,
                                                         std::uint32_t line_bytes,
                                                         const void* owner) {
  p = pool.allocate_request();
  GpuExtension& e = static_cast<PooledPayload*>(p)->ext;
  p->set_command(cmd);
  p->set_address(line);
  p->set_data_length(line_bytes);
  p->set_streaming_width(line_bytes);
  p->set_byte_enable_ptr(nullptr);
  p->set_byte_enable_length(0);
  e.cluster = 0;
  e.warp = 0;
  e.cta = 0;
  e.bypass_rank = 0;
  e.bypass_population = 1;
  e.issue_ps = 0;
  e.owner = owner;
  return e;
}
}  // namespace

void L2CacheBank::write_back(const Eviction& ev, std::uint32_t set, int way, Cycle ready) {
  if (!ev.valid) return;
  ++evictions_;
  if (!ev.dirty_sectors) return;
  ++writebacks_;
  const CacheGeometry& g = policy_.tags().geometry();
  Payload* wb = nullptr;
  GpuExtension& we =
      line_request(ctx_.pool, wb, tlm::TLM_WRITE_COMMAND, ev.line_addr, g.line_bytes, this);
  we.sm = 0;
  we.kernel = 0;
  we.data_structure = 0xffff;
  we.kind = AccessKind::Store;
  we.sector_mask = ev.dirty_sectors;
  we.bytes = ByteMask::of_sectors(ev.dirty_sectors, g.sector_bytes);
  we.owner_tag = kWritebackTag;
  we.at(at_name_);
  // The victim's frame still holds its data (the new line has not written it yet).
  if (const std::uint8_t* data = data_.frame(policy_.tags(), set, way))
    std::memcpy(wb->get_data_ptr(), data, g.line_bytes);
  push_down(wb, ready);
}

int L2CacheBank::process(Payload& gp, Cycle now) {
  // Requests through the ROP stage but not yet through the tag stage occupy the input queue.
  std::size_t waiting = 0;
  for (std::uint32_t i = 0; i < rop_.size(); ++i) {
    if (rop_[i].ready > now || waiting == cfg_.input_queue) break;
    ++waiting;
  }
  if (waiting == cfg_.input_queue) return kInputFull;
  gpu_ext(gp).at(at_name_);
  rop_.push_back(Queued{&gp, now + cfg_.rop_latency});
  if (rop_.size() == 1) wake_tag_stage(now + cfg_.rop_latency);
  return 0;
}

void L2CacheBank::wake_tag_stage(Cycle when) {
  if (!rop_.empty()) ask_tag(std::max(when, rop_.front().ready));
}

inline int L2CacheBank::decide(Payload& gp, Cycle now) {
  GpuExtension& e = ext_of(gp);
  const CacheGeometry& g = policy_.tags().geometry();
  // Fills and write-backs still in the tag stage will take miss-queue entries too.
  const bool pipe_was_empty = pipe_.empty();
  const std::size_t used = miss_queue_.size() + pipe_.size();
  const std::size_t room = used < miss_queue_.capacity() ? miss_queue_.capacity() - used : 0;
  // The set from the baseline bank-local address (AddressMap::bank_local() without ranges).
  std::uint32_t set = kNoSlot;
  if (inline_index_map_ && inline_index_map_->num_ranges() == 0)
    set = policy_.tags().set_of_index_address(bank_local_(gp.get_address()));
  L2Decision d;
  policy_.access(e.kind, gp.get_address(), e.bytes, &gp, room, d, set);
  if (d.outcome == L2Outcome::Fail) return static_cast<int>(d.fail);
  ++accesses_;
  if (e.kind == AccessKind::Store) ++stores_;
  if (e.kind == AccessKind::Atomic) ++atomics_;
  // The decision is taken as the request enters the tag stage: a miss reaches the miss queue
  // after it, a hit's data after the data stage.
  const Cycle tagged = now + cfg_.tag_latency;
  switch (d.outcome) {
    case L2Outcome::MshrMerge:
      ++mshr_hits_;
      note_merged(gp, now);
      return 0;
    case L2Outcome::Hit:
      ++hits_;
      perform(gp, e, d.line, d.way, d.set, d.need);
      // respond_at(); the tag run is at the next edge: its cycle is now (no division).
      if (queue_response(tagged + cfg_.data_latency, gp)) wake_responses(now);
      return 0;
    default:
      break;
  }
  ++misses_;
  if (d.victim.valid && !d.victim.dirty_sectors) {
    ++evictions_;  // write_back()'s count, without the call: most victims are clean
  } else if (d.victim.valid) {
    write_back(d.victim, d.set, d.way, tagged);
  }
  if (d.outcome == L2Outcome::StoreAllocate) {
    perform(gp, e, d.line, d.way, d.set, d.need);
    // respond_at(); the tag run is at the next edge: its cycle is now (no division).
    if (queue_response(tagged + cfg_.data_latency, gp)) wake_responses(now);
    if (pipe_was_empty) wake_down(now);
    return 0;
  }
  if (d.missing != fill_missing_) {  // mostly the same sectors as the previous fill
    fill_missing_ = d.missing;
    fill_bytes_ = ByteMask::of_sectors(d.missing, g.sector_bytes);
  }
  Payload* f = nullptr;
  GpuExtension& fe = line_request(ctx_.pool, f, tlm::TLM_READ_COMMAND, d.line, g.line_bytes, this);
  fe.sm = e.sm;
  fe.kernel = e.kernel;
  fe.data_structure = e.data_structure;
  fe.kind = AccessKind::Load;
  fe.sector_mask = d.missing;
  fe.bytes = fill_bytes_;
  fe.owner_tag = kFillTag | std::uintptr_t{policy_.tags().slot(d.set, d.way)} << 2;
  fe.parent = e.id;
  fe.at(at_name_);
  push_down(f, tagged);
  if (pipe_was_empty) wake_down(now);
  return 0;
}

void L2CacheBank::tag_method() {
  if (rop_.empty()) return;
  const Cycle now = tag_cycle_;  // this run's cycle, at its edge (ask_tag())
  sc_assert(clk_.on_edge(now));
  if (now == last_decision_) {
    ask_tag(now + 1);
    return;
  }
  Queued& head = rop_.front();
  if (head.ready > now) {
    ask_tag(head.ready);
    return;
  }
  const int f = decide(*head.gp, now);
  note_attempt(held_cause_, held_since_, f, now);
  if (f != 0) return;  // a fill or a miss-queue pop wakes the stage again
  last_decision_ = now;
  rop_.pop_front();
  retry_at(now + 1);  // a request refused for a full input queue may enter now
  wake_tag_stage(now + 1);
}

void L2CacheBank::note_merged(const Payload& gp, Cycle now) {
  merged_at_[&gp] = now;
}

void L2CacheBank::send_down() {
  const Cycle next = clk_.next_edge_cycle();
  send_down_at(clk_.on_edge(next) ? next : next - 1, next);
}

void L2CacheBank::send_down_at(Cycle now, Cycle next_edge) {
  bool popped = false;
  while (!pipe_.empty() && pipe_.front().ready <= now) {
    Payload* gp = pipe_.front().gp;
    if (miss_queue_.empty() && !down_.busy()) {
      // Straight down, as pushing it to the empty miss queue and popping it did (pipe_ never
      // holds more than the queue's room, so every ready entry would have entered it).
      pipe_.pop_front();
      down_.send(*gp);
      popped = true;
      continue;
    }
    if (miss_queue_.full()) break;
    miss_queue_.push(gp);
    pipe_.pop_front();
  }
  while (!down_.busy() && !miss_queue_.empty()) {
    down_.send(*miss_queue_.pop());
    popped = true;
  }
  // A head still in the pipeline needs a wake-up; one blocked by a full miss queue moves when
  // the link below frees (which calls send_down).
  if (!pipe_.empty() && pipe_.front().ready > now) ask_down(pipe_.front().ready);
  // Only a head that was refused waits for this (otherwise its wake-up is already asked for).
  if (popped && held_cause_ != 0) wake_tag_stage(next_edge + 1);
}

bool L2CacheBank::on_response_from_below(Payload& gp) {
  // Only this bank's fills and write-backs go below, each from the payload pool: no type test.
  GpuExtension& e = static_cast<PooledPayload&>(gp).ext;
  const Cycle now = clk_.next_edge_cycle();
  if (e.owner_tag == kWritebackTag) {
    gp.release();
    return true;
  }
  const Addr line = gp.get_address();
  const CacheGeometry& g = policy_.tags().geometry();
  ++fills_;
  if (std::uint8_t* d = line_data(line)) copy_masked(d, gp.get_data_ptr(), e.bytes, g.line_bytes);
  // The fill is written to the data array and the waiting requests read from it.
  const Cycle when = now + cfg_.data_latency;
  const Cycle pipeline = cfg_.tag_latency + cfg_.data_latency;
  bool to_head = false;  // whether a response went to the queue's head (see respond_at())
  // The completed requests are performed and queued as the MSHR entry releases them. The
  // release is always inline: the MSHR's one-waiter path calls it from a second place, and GCC
  // then made it a call (fermi vecadd +9 per transaction).
  policy_.fill_each(
      line, e.sector_mask, static_cast<std::uint32_t>(e.owner_tag >> 2),
      [&](Payload * r) __attribute__((always_inline)) {
        GpuExtension& re = ext_of(*r);
        if (re.kind == AccessKind::Store) policy_.store_covers(line, re.bytes);
        perform(*r, re, line);
        re.at(at_name_);
        Cycle t = when;
        if (!merged_at_.empty()) {  // merges are rare: skip the hash lookup
          auto m = merged_at_.find(r);
          if (m != merged_at_.end()) {
            t = std::max(t, m->second + pipeline);
            merged_at_.erase(m);
          }
        }
        to_head |= queue_response(t, *r);
      });
  gp.release();
  if (to_head) wake_responses(now);  // now is the next edge's cycle: no second division
  // A refused head may go now; any other head already has its wake-up asked for (no earlier).
  if (held_cause_ != 0) wake_tag_stage(now + 1);
  return true;
}

unsigned int L2CacheBank::transport_dbg(Payload& gp) {
  // DRAM holds everything not dirty here; overlay (or update) the valid sectors of this bank.
  unsigned n = dram->transport_dbg(gp);
  if (!data_.enabled()) return n;
  const TagArray& tags = policy_.tags();
  const CacheGeometry& g = tags.geometry();
  for (unsigned i = 0; i < gp.get_data_length(); ++i) {
    Addr a = gp.get_address() + i;
    Addr line = tags.line_addr(a);
    int way = tags.find(line);
    if (way < 0) continue;
    const TagLine& tl = tags.line(tags.set_index(line), way);
    unsigned off = static_cast<unsigned>(a - line);
    if (!((tl.valid_sectors >> (off / g.sector_bytes)) & 1u)) continue;
    std::uint8_t* d = line_data(line) + off;
    if (gp.is_read())
      gp.get_data_ptr()[i] = *d;
    else
      *d = gp.get_data_ptr()[i];
  }
  return n;
}

void L2CacheBank::b_transport(Payload& gp, sc_core::sc_time& d) {
  // Loosely-timed functional access: coherent with this bank's contents, hit latency annotated.
  transport_dbg(gp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  d += clk_.period() * static_cast<double>(cfg_.hit_latency());
}

}  // namespace locsim
