// StoreGPU (STO of the GPGPU-Sim ISPASS 2009 benchmark set, NetSysLab UBC): SHA1 of overlapping
// chunks of one data buffer, the configuration the benchmark runs (cust.h: FEATURE_RUN_SHA1,
// FEATURE_RUN_OVERLAP_TEST, FEATURE_SHARED_MEMORY, FEATURE_REDUCED_HASH_SIZE):
//   sha1_overlap<<<BLOCKS_PER_GRID = 384, THREADS_PER_BLOCK = 128>>>(in, CHUNK_SIZE = 52,
//   OFFSET = 4, total = 384*128, pad = 0, out), in = total*OFFSET + CHUNK_SIZE - OFFSET bytes.
// Thread t = blockIdx.x*blockDim.x + threadIdx.x hashes the chunk starting at byte t*OFFSET, so
// consecutive threads (and the last/first threads of consecutive CTAs) read overlapping words:
// the 1-D neighbour sharing of PAVER's Fig. 5 (Table 2: 384 TBs, 49,164 words, SpScore 0.9948).
// Each warp owns 512 words of the __shared__ W[4064] array, word i of lane l at
// warp*512 + 32*i + l (SHARED_MEMORY_INDEX). Per 64-byte pass p (chunk/64 + 1 passes):
//   not last: W[j] = in_words[t*OFFSET/4 + 16p + j], j < 16
//   last:     pad = (52 - (chunk - 64p)) / 4;  W[13-i] = 0 (i < pad);
//             W[j] = in_words[t*OFFSET/4 + 16p + j] (j < 13 - pad);  W[13-pad] = 0x80;
//             W[14], W[15] = chunk length, big-endian, as 8 byte stores
//   then W[k] = big-endian(4 byte loads of W[k]) for k < 16, and 80 SHA1 rounds: rounds 0..15 read
//   W[t]; rounds 16..79 read W[t-3], W[t-8], W[t-14], W[t] (mod 16) and write W[t mod 16].
// Finally the 4-byte reduced hash is written as 4 byte stores at out + 4t.
#include <memory>
#include <string>

#include "model/params.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo storegpu_workload();

namespace {

constexpr std::uint32_t kHashBytes = 4;       // SHA1_HASH_SIZE with FEATURE_REDUCED_HASH_SIZE
constexpr std::uint32_t kWarpWords = 512;     // words of W per warp
constexpr std::uint32_t kSharedWords = 4064;  // __shared__ unsigned int W[4 * 1024 - 32]
constexpr std::uint32_t kMaxThreads = 224;    // 7 warps: warp 7's slice would overrun W
enum : std::uint16_t { kIn, kOut };

enum : std::uint32_t {
  kPcIndex = 0x000,
  kPcLd = 0x008,      // + 0x08 * j, 16 unrolled loads of a full pass
  kPcSt = 0x088,      // + 0x08 * j
  kPcPadSt = 0x108,   // W[13-i] = 0 loop
  kPcLastLd = 0x110,  // W[j] = in[...] loop of the last pass
  kPcLastSt = 0x118,
  kPcMark = 0x120,   // W[13-pad] = 0x80
  kPcLen = 0x128,    // + 0x08 * b, PUT_UINT32_BE of the bit length into W[14], W[15]
  kPcBeLd = 0x168,   // + 0x08 * (4k + b), GET_UINT32_BE byte loads
  kPcBeSt = 0x368,   // + 0x08 * k
  kPcRound = 0x3e8,  // + 0x30 * t: 4 load slots, a store slot, a compute slot per round
  kPcState = 0x1368,
  kPcLoop = 0x1370,
  kPcOut = 0x1378,  // + 0x08 * b
  kPcExit = 0x1398
};

struct StoParams {
  std::uint32_t chunk = 0, offset = 0, total = 0;
  Addr in = 0, out = 0;
};

class ShaOverlapStream final : public CoroutineStream {
 public:
  ShaOverlapStream(const WarpContext& w, const StoParams& p)
      : w_(w), p_(p), passes_(p.chunk / 64 + 1) {
    pad_ = (52 - (p.chunk - (passes_ - 1) * 64)) / 4;
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcIndex, all, 6, kAluLatency));
    for (pass_ = 0; pass_ < passes_; ++pass_) {
      if (pass_ + 1 < passes_) {
        for (j_ = 0; j_ < 16; ++j_) {
          LOCSIM_CO_YIELD(emit_load(in, kPcLd + 0x08 * j_, all, kIn,
                                    [this](unsigned l) { return in_word(l, j_); }));
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcSt + 0x08 * j_, all,
                                            [this](unsigned l) { return w_addr(l, j_); }));
        }
      } else {
        for (j_ = 0; j_ < pad_; ++j_)
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcPadSt, all,
                                            [this](unsigned l) { return w_addr(l, 13 - j_); }));
        for (j_ = 0; j_ < 13 - pad_; ++j_) {
          LOCSIM_CO_YIELD(
              emit_load(in, kPcLastLd, all, kIn, [this](unsigned l) { return in_word(l, j_); }));
          LOCSIM_CO_YIELD(
              emit_shared_store(in, kPcLastSt, all, [this](unsigned l) { return w_addr(l, j_); }));
        }
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcMark, all,
                                          [this](unsigned l) { return w_addr(l, 13 - pad_); }));
        for (j_ = 0; j_ < 8; ++j_)  // bytes of W[14] then W[15]
          LOCSIM_CO_YIELD(emit_shared_store(
              in, kPcLen + 0x08 * j_, all,
              [this](unsigned l) { return w_addr(l, 14 + j_ / 4) + j_ % 4; }, 1));
      }
      for (j_ = 0; j_ < 16; ++j_) {
        for (b_ = 0; b_ < 4; ++b_)
          LOCSIM_CO_YIELD(emit_shared_load(
              in, kPcBeLd + 0x08 * (4 * j_ + b_), all,
              [this](unsigned l) { return w_addr(l, j_) + b_; }, 1));
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcBeSt + 0x08 * j_, all,
                                          [this](unsigned l) { return w_addr(l, j_); }));
      }
      for (t_ = 0; t_ < 80; ++t_) {
        if (t_ < 16) {
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcRound + 0x30 * t_, all,
                                           [this](unsigned l) { return w_addr(l, t_); }));
        } else {
          for (b_ = 0; b_ < 4; ++b_) {
            LOCSIM_CO_YIELD(
                emit_shared_load(in, kPcRound + 0x30 * t_ + 0x08 * b_, all, [this](unsigned l) {
                  static constexpr std::uint32_t kBack[4] = {3, 8, 14, 0};
                  return w_addr(l, (t_ - kBack[b_]) & 15);
                }));
          }
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcRound + 0x30 * t_ + 0x20, all,
                                            [this](unsigned l) { return w_addr(l, t_ & 15); }));
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcRound + 0x30 * t_ + 0x28, all, 8, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcState, all, 5, kAluLatency));
      LOCSIM_CO_YIELD(emit_compute(in, kPcLoop, all, 2, kAluLatency));
    }
    for (b_ = 0; b_ < kHashBytes; ++b_)
      LOCSIM_CO_YIELD(emit_store(
          in, kPcOut + 0x08 * b_, all, kOut,
          [this](unsigned l) { return p_.out + Addr{kHashBytes} * tid(l) + b_; }, 1));
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t tid(unsigned l) const { return w_.global_x(l); }
  // Word j of pass pass_ of lane l's chunk: ((unsigned*)(in + t*OFFSET))[16*pass + j].
  Addr in_word(unsigned l, std::uint32_t j) const {
    return p_.in + tid(l) * p_.offset + 4 * (16 * std::uint64_t{pass_} + j);
  }
  // Byte offset of W[i] of lane l in the CTA's shared memory (SHARED_MEMORY_INDEX).
  Addr w_addr(unsigned l, std::uint32_t i) const {
    return 4 * (Addr{kWarpWords} * w_.warp() + 32 * i + (w_.thread_idx(l).x & 31));
  }

  WarpContext w_;
  StoParams p_;
  std::uint32_t passes_ = 1, pad_ = 0;
  std::uint32_t pass_ = 0, j_ = 0, b_ = 0, t_ = 0;
};

WorkloadParamDecls params() {
  return {
      {"ctas", {"384", "BLOCKS_PER_GRID (PAVER Table 2: 384 TBs)"}},
      {"threads", {"128", "THREADS_PER_BLOCK (at most 224: 7 warps of 512 shared words)"}},
      {"chunk", {"52", "CHUNK_SIZE, bytes hashed per thread (a multiple of 4, chunk % 64 <= 52)"}},
      {"offset", {"4", "OFFSET, bytes between the chunks of consecutive threads (multiple of 4)"}}};
}

std::unique_ptr<Workload> make_storegpu(const WorkloadArgs& args) {
  WorkloadArgReader r("storegpu", params(), args);
  StoParams p;
  const std::uint32_t ctas = r.get_u32("ctas", {1, 1u << 20, 1, ""});
  const std::uint32_t threads =
      r.get_u32("threads", {1, kMaxThreads, 1, "each warp owns 512 of the 4064 shared words"});
  p.chunk = r.get_u32("chunk", {4, 1u << 16, 4, "the kernel moves whole words"});
  p.offset = r.get_u32("offset", {4, 1u << 16, 4, "chunks start on word boundaries"});
  if (p.chunk % 64 > 52)
    throw ConfigError("workload 'storegpu': parameter 'chunk': bad value '" + r.text("chunk") +
                      "' (chunk % 64 must be at most 52: the last 64-byte pass keeps 12 bytes of "
                      "padding and length)");
  p.total = ctas * threads;
  const std::uint64_t in_bytes = std::uint64_t{p.total} * p.offset + p.chunk - p.offset;
  const std::uint64_t out_bytes = std::uint64_t{p.total} * kHashBytes;
  DeviceAllocator alloc;
  p.in = alloc.alloc(in_bytes);
  p.out = alloc.alloc(out_bytes);
  // in: each CTA reads threads*offset + chunk - offset bytes, starting threads*offset bytes after
  // the previous CTA's: neighbouring CTAs share chunk - offset bytes (INTER-THREAD, NEARBY,
  // REGULAR; PAVER Fig. 5 "neighbours in a 1-D grid"). out: every hash written once: NO-REUSE.
  const std::uint32_t tile_words = (threads * p.offset + p.chunk - p.offset) / 4;
  std::vector<DataStructure> data = {
      {"d_input",
       p.in,
       in_bytes,
       4,
       {inter_thread(SharingType::Nearby, AccessPattern::Regular, {tile_words, 1, 1}, {1, 1, 1},
                     {threads * p.offset / 4, 0, 0})}},
      {"d_output", p.out, out_bytes, 1, {no_reuse()}}};
  KernelShape shape;
  shape.name = "sha1_overlap";
  shape.grid = {ctas, 1, 1};
  shape.block = {threads, 1, 1};
  shape.regs_per_thread = 20;
  shape.shared_mem_bytes = kSharedWords * 4;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<ShaOverlapStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "storegpu",
      "StoreGPU sha1_overlap, " + std::to_string(ctas) + " CTAs x " + std::to_string(threads) +
          " threads, " + std::to_string(p.chunk) + "-byte chunks every " +
          std::to_string(p.offset) + " bytes (" + std::to_string(in_bytes) + "-byte buffer)",
      std::move(ks));
}

}  // namespace

WorkloadInfo storegpu_workload() {
  return {"storegpu",
          "GPGPU-Sim",
          "StoreGPU (ISPASS 2009 STO): SHA1 of overlapping chunks, one chunk per thread",
          "ctas=384, threads=128, chunk=52, offset=4",
          params(),
          make_storegpu,
          {{"paver", {{"ctas", "384"}, {"threads", "128"}, {"chunk", "52"}, {"offset", "4"}}}}};
}

}  // namespace locsim
