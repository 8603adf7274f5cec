// Rodinia streamcluster (cuda/streamcluster/streamcluster_cuda.cu), kernel_compute_cost: one
// launch per pgain() call, i.e. per candidate centre x, grid of ceil(num/512) CTAs of 512 threads
// (THREADS_PER_BLOCK; folded into gridDim.y beyond 65536 CTAs):
//   bid = blockIdx.x + gridDim.x*blockIdx.y;  tid = blockDim.x*bid + threadIdx.x;
//   if (tid < num) {
//     lower = &work_mem[tid*stride];                          // stride = K+1
//     x_cost = d_dist(tid, x) * p[tid].weight;                // sum_i (coord[i*num+tid] -
//                                                             //        coord[i*num+x])^2
//     if (x_cost < p[tid].cost) { switch_membership[tid] = 1; lower[K] += x_cost - p[tid].cost; }
//     else lower[center_table[p[tid].assign]] += p[tid].cost - x_cost;
//   }
// Point is {float weight; float *coord; long assign; float cost;}: 32 bytes, weight at 0, assign
// at 16, cost at 24. The branch is decided on the host from deterministic points (coordinates
// hashed from a fixed seed, K centres, each point assigned to its nearest centre).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/builtin_workloads.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo streamcluster_workload();

namespace {

constexpr std::uint32_t kThreads = 512;  // THREADS_PER_BLOCK
constexpr std::uint32_t kMaxBlocks = 65536;
constexpr std::uint32_t kPointBytes = 32;
enum : std::uint16_t { kCoord, kP, kCenterTable, kSwitch, kWorkMem };

enum : std::uint32_t {
  kPcLdX = 0x00,  // coord[i*num + tid]
  kPcLdC = 0x08,  // coord[i*num + x]
  kPcDist = 0x10,
  kPcLdWeight = 0x18,
  kPcLdCost = 0x20,
  kPcCmp = 0x28,
  kPcStSwitch = 0x30,
  kPcLdLowK = 0x38,
  kPcAddK = 0x40,
  kPcStLowK = 0x48,
  kPcLdAssign = 0x50,
  kPcLdCenter = 0x58,
  kPcLdLowC = 0x60,
  kPcAddC = 0x68,
  kPcStLowC = 0x70,
  kPcExit = 0x78
};

// Deterministic host-side model of the input: seed-fixed coordinates, assignments, and the
// per-launch outcome of the x_cost < cost test.
struct ScHost {
  std::vector<std::uint32_t> center_of;   // center_table[assign[tid]], in [0, K)
  std::vector<std::uint32_t> assign;      // assign[tid]: the point index of the centre
  std::vector<std::vector<bool>> closer;  // [launch][tid]: x_cost < p[tid].cost
};

struct ScParams {
  std::uint32_t num = 0, dim = 0, k = 0;
  std::uint32_t x = 0;  // candidate centre of this launch
  std::uint32_t launch = 0;
  std::shared_ptr<const ScHost> host;
  Addr coord = 0, p = 0, center_table = 0, sw = 0, work_mem = 0;
};

class ScStream final : public CoroutineStream {
 public:
  ScStream(const WarpContext& w, const ScParams& p) : w_(w), p_(p) {
    body_ = w.lanes_where([&](unsigned l) { return tid(l) < p.num; });
    const auto& closer = p.host->closer[p.launch];
    taken_ = w.lanes_where([&](unsigned l) { return tid(l) < p.num && closer[tid(l)]; });
    other_ = body_ & ~taken_;
  }

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (body_) {
      for (i_ = 0; i_ < p_.dim; ++i_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdX, body_, kCoord, [this](unsigned l) {
          return p_.coord + 4 * (std::uint64_t{i_} * p_.num + tid(l));
        }));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdC, body_, kCoord, [this](unsigned) {
          return p_.coord + 4 * (std::uint64_t{i_} * p_.num + p_.x);
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcDist, body_, 2, kAluLatency));  // FADD, FFMA
      }
      LOCSIM_CO_YIELD(emit_load(in, kPcLdWeight, body_, kP,
                                [this](unsigned l) { return p_.p + kPointBytes * tid(l); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdCost, body_, kP,
                                [this](unsigned l) { return p_.p + kPointBytes * tid(l) + 24; }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcCmp, body_, 2, kAluLatency));  // FMUL, FSETP
      if (taken_) {
        LOCSIM_CO_YIELD(emit_store(
            in, kPcStSwitch, taken_, kSwitch, [this](unsigned l) { return p_.sw + tid(l); }, 1));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdLowK, taken_, kWorkMem,
                                  [this](unsigned l) { return lower(l, p_.k); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcAddK, taken_, 2, kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, kPcStLowK, taken_, kWorkMem,
                                   [this](unsigned l) { return lower(l, p_.k); }));
      }
      if (other_) {
        LOCSIM_CO_YIELD(emit_load(
            in, kPcLdAssign, other_, kP,
            [this](unsigned l) { return p_.p + kPointBytes * tid(l) + 16; }, 8));
        LOCSIM_CO_YIELD(
            emit_dependent_load(in, kPcLdCenter, other_, kCenterTable, [this](unsigned l) {
              return p_.center_table + 4 * std::uint64_t{p_.host->assign[tid(l)]};
            }));
        LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdLowC, other_, kWorkMem, [this](unsigned l) {
          return lower(l, p_.host->center_of[tid(l)]);
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcAddC, other_, 2, kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, kPcStLowC, other_, kWorkMem, [this](unsigned l) {
          return lower(l, p_.host->center_of[tid(l)]);
        }));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t tid(unsigned l) const { return w_.global_linear(l); }  // blockDim.x*bid + tx
  Addr lower(unsigned l, std::uint64_t c) const {
    return p_.work_mem + 4 * (tid(l) * (p_.k + 1) + c);
  }

  WarpContext w_;
  ScParams p_;
  std::uint32_t body_ = 0, taken_ = 0, other_ = 0;
  std::uint32_t i_ = 0;
};

std::uint32_t mix(std::uint64_t v) {  // splitmix64 finaliser: fixed, platform-independent
  v += 0x9e3779b97f4a7c15ull;
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::uint32_t>((v ^ (v >> 31)) >> 32);
}

WorkloadParamDecls params() {
  return {{"num", {"16384", "points (one thread each)"}},
          {"dim", {"16", "dimensions per point"}},
          {"k", {"10", "current number of centres K (work_mem stride K+1)"}},
          {"invocations", {"4", "pgain() calls, i.e. kernel_compute_cost launches"}}};
}

std::unique_ptr<Workload> make_streamcluster(const WorkloadArgs& args) {
  WorkloadArgReader r("streamcluster", params(), args);
  const std::uint32_t num = r.get_u32("num", {1, 1u << 22, 1, ""});
  const std::uint32_t dim = r.get_u32("dim", {1, 256, 1, ""});
  const std::uint32_t k = r.get_u32("k", {1, 1024, 1, ""});
  const std::uint32_t inv = r.get_u32("invocations", {1, 64, 1, ""});
  if (k > num)
    throw ConfigError("workload 'streamcluster': parameter 'k': bad value '" + std::to_string(k) +
                      "' (must be <= num = " + std::to_string(num) + ")");
  // Host model: coordinates in [0,1) from a fixed hash (seed 0x5c), weight 1, centres at points
  // c*num/K, each point assigned to its nearest centre at cost = distance^2.
  auto coord = [&](std::uint32_t pt, std::uint32_t d) {
    return static_cast<float>(mix(0x5c00000000ull + std::uint64_t{d} * num + pt) >> 8) /
           16777216.0f;
  };
  auto dist = [&](std::uint32_t a, std::uint32_t b) {
    float s = 0;
    for (std::uint32_t d = 0; d < dim; ++d) {
      const float t = coord(a, d) - coord(b, d);
      s += t * t;
    }
    return s;
  };
  auto host = std::make_shared<ScHost>();
  host->center_of.resize(num);
  host->assign.resize(num);
  std::vector<float> cost(num);
  for (std::uint32_t i = 0; i < num; ++i) {
    float best = 0;
    for (std::uint32_t c = 0; c < k; ++c) {
      const float d = dist(i, static_cast<std::uint32_t>(std::uint64_t{c} * num / k));
      if (c == 0 || d < best) {
        best = d;
        host->center_of[i] = c;
      }
    }
    host->assign[i] = static_cast<std::uint32_t>(std::uint64_t{host->center_of[i]} * num / k);
    cost[i] = best;
  }
  std::vector<std::uint32_t> xs(inv);
  host->closer.resize(inv);
  for (std::uint32_t j = 0; j < inv; ++j) {
    xs[j] = mix(0x5c0000ull + j) % num;
    host->closer[j].resize(num);
    for (std::uint32_t i = 0; i < num; ++i) host->closer[j][i] = dist(i, xs[j]) < cost[i];
  }
  DeviceAllocator alloc;
  ScParams p;
  p.num = num;
  p.dim = dim;
  p.k = k;
  p.host = host;
  const std::uint64_t coord_bytes = std::uint64_t{num} * dim * 4;
  const std::uint64_t wm_bytes = std::uint64_t{k + 1} * (num + 1) * 4;
  p.center_table = alloc.alloc(std::uint64_t{num} * 4);
  p.sw = alloc.alloc(num);
  p.p = alloc.alloc(std::uint64_t{num} * kPointBytes);
  p.coord = alloc.alloc(coord_bytes);
  p.work_mem = alloc.alloc(wm_bytes);  // cudaMalloc'd and zeroed per pgain(); same address reused
  const std::uint32_t blocks = (num + kThreads - 1) / kThreads;
  const std::uint32_t by = (blocks + kMaxBlocks - 1) / kMaxBlocks;
  const std::uint32_t bx = (blocks + by - 1) / by;
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t j = 0; j < inv; ++j) {
    p.x = xs[j];
    p.launch = j;
    // Seed 000 Table 2: NO-REUSE + INTER-THREAD (NEARBY). Coordinates, points and flags are
    // streamed once per launch; the centre's coordinate column is read by every thread but is one
    // word per dimension; work_mem rows of neighbouring threads are K+1 floats apart, so nearby
    // threads share lines (NEARBY, stride K+1); center_table is indexed by the assigned centre.
    std::vector<DataStructure> data = {
        {"coord_d", p.coord, coord_bytes, 4, {no_reuse()}},
        {"p", p.p, std::uint64_t{num} * kPointBytes, kPointBytes, {no_reuse()}},
        {"center_table_d",
         p.center_table,
         std::uint64_t{num} * 4,
         4,
         {inter_thread(SharingType::Nearby, AccessPattern::Irregular, {num, 1, 1}, {bx, by, 1},
                       {0, 0, 0})}},
        {"switch_membership_d", p.sw, num, 1, {no_reuse()}},
        {"work_mem_d",
         p.work_mem,
         wm_bytes,
         4,
         {inter_thread(SharingType::Nearby, AccessPattern::Regular, {kThreads * (k + 1), 1, 1},
                       {1, 1, 1}, {1, 0, 0}, k + 1)}}};
    KernelShape shape;
    shape.name = "kernel_compute_cost";
    shape.grid = {bx, by, 1};
    shape.block = {kThreads, 1, 1};
    shape.regs_per_thread = 18;
    ks.push_back(make_grid_kernel<ScStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "streamcluster",
      "Rodinia streamcluster, " + std::to_string(num) + " points x " + std::to_string(dim) +
          " dims, K=" + std::to_string(k) + ", " + std::to_string(inv) + " pgain launches",
      std::move(ks));
}

}  // namespace

WorkloadInfo streamcluster_workload() {
  return {"streamcluster",
          "Rodinia",
          "online clustering: per-point cost of opening a candidate centre (kernel_compute_cost)",
          "num=16384, dim=16, k=10, 4 launches",
          params(),
          make_streamcluster};
}

}  // namespace locsim
