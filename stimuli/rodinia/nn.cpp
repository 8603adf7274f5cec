// Rodinia nn (cuda/nn/nn_cuda.cu), euclid: the distance of every record's (lat, lng) to a query
// point, one thread per record, 256 threads per block, the blocks folded into a 2-D grid of at
// most 65535 columns (findLowest's gridX/gridY):
//   int globalId = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
//   LatLong *latLong = d_locations + globalId;
//   if (globalId < numRecords) {
//     float *dist = d_distances + globalId;
//     *dist = sqrt((lat - latLong->lat)^2 + (lng - latLong->lng)^2);
//   }
// LatLong is {float lat; float lng;} (8 bytes): each warp reads 256 contiguous bytes as two
// 4-byte loads with an 8-byte lane stride, and writes 128 bytes. Pure streaming.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo nn_workload();

namespace {

constexpr std::uint32_t kThreads = 256;     // threadsPerBlock in nn_cuda.cu
constexpr std::uint32_t kMaxGridX = 65535;  // findLowest: maxGridX
enum : std::uint16_t { kLocations, kDistances };

enum : std::uint32_t {
  kPcIndex = 0x00,
  kPcLdLat = 0x08,
  kPcLdLng = 0x10,
  kPcMath = 0x18,
  kPcStDist = 0x20,
  kPcExit = 0x28
};

struct NnParams {
  std::uint32_t n = 0;
  Addr locations = 0, distances = 0;
};

class NnStream final : public CoroutineStream {
 public:
  NnStream(const WarpContext& w, const NnParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) { return gid(l) < p.n; })) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcIndex, w_.live_mask(), 3, kAluLatency));  // globalId
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdLat, body_, kLocations,
                                [this](unsigned l) { return p_.locations + 8 * gid(l); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdLng, body_, kLocations,
                                [this](unsigned l) { return p_.locations + 8 * gid(l) + 4; }));
      LOCSIM_CO_YIELD(
          emit_compute(in, kPcMath, body_, 6, kAluLatency));  // 2 FADD, FMUL, FFMA, SQRT
      LOCSIM_CO_YIELD(emit_store(in, kPcStDist, body_, kDistances,
                                 [this](unsigned l) { return p_.distances + 4 * gid(l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t gid(unsigned l) const {
    const auto& b = w_.block_idx();
    return std::uint64_t{kThreads} * (std::uint64_t{w_.grid_dim().x} * b.y + b.x) +
           w_.thread_idx(l).x;
  }

  WarpContext w_;
  NnParams p_;
  std::uint32_t body_;
};

WorkloadParamDecls params() {
  return {{"records", {"1048576", "number of (lat, lng) records (one thread each)"}}};
}

std::unique_ptr<Workload> make_nn(const WorkloadArgs& args) {
  WorkloadArgReader r("nn", params(), args);
  NnParams p;
  p.n = r.get_u32("records", {1, 1u << 26, 1, ""});
  DeviceAllocator alloc;
  p.locations = alloc.alloc(std::uint64_t{p.n} * 8);
  p.distances = alloc.alloc(std::uint64_t{p.n} * 4);
  // Each record is read once by its own thread and each distance written once: NO-REUSE.
  std::vector<DataStructure> data = {
      {"d_locations", p.locations, std::uint64_t{p.n} * 8, 8, {no_reuse()}},
      {"d_distances", p.distances, std::uint64_t{p.n} * 4, 4, {no_reuse()}}};
  const std::uint32_t blocks = (p.n + kThreads - 1) / kThreads;
  KernelShape shape;
  shape.name = "euclid";
  shape.grid = {blocks > kMaxGridX ? kMaxGridX : blocks, (blocks + kMaxGridX - 1) / kMaxGridX, 1};
  shape.block = {kThreads, 1, 1};
  shape.regs_per_thread = 10;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<NnStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "nn", "Rodinia nn (euclid), " + std::to_string(p.n) + " records", std::move(ks));
}

}  // namespace

WorkloadInfo nn_workload() {
  return {"nn",         "Rodinia", "nearest neighbour: distance of every record to a point",
          "records=1M", params(),  make_nn};
}

}  // namespace locsim
