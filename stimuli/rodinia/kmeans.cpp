// Rodinia kmeans (cuda/kmeans/kmeans_cuda.cu, kmeans_cuda_kernel.cu). Once per run the host
// transposes the features to [nfeatures][npoints] with invert_mapping (256 threads per block,
// ceil(npoints/256) blocks):
//   point_id = threadIdx.x + blockDim.x*blockIdx.x;
//   if (point_id < npoints) for (i = 0; i < nfeatures; i++)
//     output[point_id + npoints*i] = input[point_id*nfeatures + i];
// then each clustering iteration launches kmeansPoint on a square grid of
// (int)sqrt(num_blocks)+1 blocks per side, 256 threads per block:
//   block_id = gridDim.x*blockIdx.y + blockIdx.x;  point_id = block_id*blockDim.x + threadIdx.x;
//   if (point_id < npoints) for (i = 0; i < nclusters; i++) {
//     for (j = 0; j < nfeatures; j++) {
//       diff = tex1Dfetch(t_features, point_id + j*npoints) - c_clusters[i*nfeatures + j];
//       ans += diff*diff; }
//     if (ans < min_dist) { min_dist = ans; index = i; } }
//   if (point_id < npoints) membership[point_id] = index;
// The host loop runs until fewer than 0.1% of the points change cluster; the model runs a fixed
// number of iterations.
#include <cmath>
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo kmeans_workload();

namespace {

constexpr std::uint32_t kThreads = 256;  // THREADS_PER_DIM * THREADS_PER_DIM

struct KmeansParams {
  std::uint32_t npoints = 0, nfeatures = 0, nclusters = 0;
  Addr features = 0, flipped = 0, clusters = 0, membership = 0;
};

// ---------------------------------------------------------------------------- invert_mapping
enum : std::uint16_t { kInput, kOutput };
enum : std::uint32_t {
  kPcInvIdx = 0x00,
  kPcInvLd = 0x08,
  kPcInvSt = 0x10,
  kPcInvLoop = 0x18,
  kPcInvExit = 0x20
};

class InvertStream final : public CoroutineStream {
 public:
  InvertStream(const WarpContext& w, const KmeansParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) { return w.global_x(l) < p.npoints; })) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcInvIdx, w_.live_mask(), 2, kAluLatency));
    if (body_) {
      for (i_ = 0; i_ < p_.nfeatures; ++i_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcInvLd, body_, kInput, [this](unsigned l) {
          return p_.features + 4 * (w_.global_x(l) * p_.nfeatures + i_);
        }));
        LOCSIM_CO_YIELD(emit_store(in, kPcInvSt, body_, kOutput, [this](unsigned l) {
          return p_.flipped + 4 * (w_.global_x(l) + std::uint64_t{p_.npoints} * i_);
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcInvLoop, body_, 2, kAluLatency));  // i++, compare
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcInvExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  KmeansParams p_;
  std::uint32_t body_;
  std::uint32_t i_ = 0;
};

// ---------------------------------------------------------------------------- kmeansPoint
enum : std::uint16_t { kFeatures, kClusters, kMembership };
enum : std::uint32_t {
  kPcIdx = 0x00,
  kPcLdFeat = 0x08,
  kPcLdClus = 0x10,
  kPcFma = 0x18,
  kPcMin = 0x20,
  kPcStMem = 0x28,
  kPcExit = 0x30
};

class PointStream final : public CoroutineStream {
 public:
  PointStream(const WarpContext& w, const KmeansParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) { return point(l) < p.npoints; })) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcIdx, w_.live_mask(), 4, kAluLatency));  // point_id
    if (body_) {
      for (i_ = 0; i_ < p_.nclusters; ++i_) {
        for (j_ = 0; j_ < p_.nfeatures; ++j_) {
          LOCSIM_CO_YIELD(emit_load(in, kPcLdFeat, body_, kFeatures, [this](unsigned l) {
            return p_.flipped + 4 * (point(l) + std::uint64_t{j_} * p_.npoints);
          }));
          LOCSIM_CO_YIELD(emit_load(in, kPcLdClus, body_, kClusters, [this](unsigned) {
            return p_.clusters + 4 * (std::uint64_t{i_} * p_.nfeatures + j_);  // broadcast
          }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcFma, body_, 2, kAluLatency));  // FADD, FFMA
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcMin, body_, 3, kAluLatency));  // compare, select
      }
      LOCSIM_CO_YIELD(emit_store(in, kPcStMem, body_, kMembership,
                                 [this](unsigned l) { return p_.membership + 4 * point(l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t point(unsigned l) const {
    const std::uint64_t block_id =
        std::uint64_t{w_.grid_dim().x} * w_.block_idx().y + w_.block_idx().x;
    return block_id * kThreads + w_.thread_idx(l).x;
  }

  WarpContext w_;
  KmeansParams p_;
  std::uint32_t body_;
  std::uint32_t i_ = 0, j_ = 0;
};

WorkloadParamDecls params() {
  return {{"points", {"4096", "number of points (one thread each)"}},
          {"features", {"34", "features per point (kdd_cup has 34)"}},
          {"clusters", {"5", "number of cluster centres"}},
          {"iterations", {"2", "kmeansPoint launches (the host loop's iterations)"}}};
}

std::unique_ptr<Workload> make_kmeans(const WorkloadArgs& args) {
  WorkloadArgReader r("kmeans", params(), args);
  KmeansParams p;
  p.npoints = r.get_u32("points", {1, 1u << 24, 1, ""});
  p.nfeatures = r.get_u32("features", {1, 1024, 1, ""});
  p.nclusters = r.get_u32("clusters", {1, 64, 1, ""});
  const std::uint32_t iters = r.get_u32("iterations", {1, 1000, 1, ""});
  const std::uint64_t feat_bytes = std::uint64_t{p.npoints} * p.nfeatures * 4;
  const std::uint64_t clus_bytes = std::uint64_t{p.nclusters} * p.nfeatures * 4;
  DeviceAllocator alloc;
  p.features = alloc.alloc(feat_bytes);
  p.flipped = alloc.alloc(feat_bytes);
  p.clusters = alloc.alloc(clus_bytes);
  p.membership = alloc.alloc(std::uint64_t{p.npoints} * 4);
  const std::uint32_t num_blocks = (p.npoints + kThreads - 1) / kThreads;
  const auto per_dim = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(num_blocks))) + 1;

  std::vector<std::unique_ptr<Kernel>> ks;
  {
    // input: INTRA-THREAD -- each thread walks its own point's nfeatures contiguous words,
    // re-touching the same lines across loop iterations. output: NO-REUSE (written once).
    std::vector<DataStructure> data = {
        {"feature_d", p.features, feat_bytes, 4, {intra_thread({p.nfeatures, 1, 1})}},
        {"feature_flipped_d", p.flipped, feat_bytes, 4, {no_reuse()}}};
    KernelShape s;
    s.name = "invert_mapping";
    s.grid = {num_blocks, 1, 1};
    s.block = {kThreads, 1, 1};
    s.regs_per_thread = 10;
    ks.push_back(make_grid_kernel<InvertStream>(std::move(s), std::move(data), p));
  }
  for (std::uint32_t it = 0; it < iters; ++it) {
    // features: INTRA-THREAD -- a thread re-reads its point's nfeatures values for every
    // cluster. clusters: INTER-THREAD (COACCESSED, REGULAR) -- every thread of every CTA reads
    // the whole centre table (constant memory in the original). membership: NO-REUSE.
    std::vector<DataStructure> data = {
        {"feature_flipped_d", p.flipped, feat_bytes, 4, {intra_thread({p.nfeatures, 1, 1})}},
        {"clusters",
         p.clusters,
         clus_bytes,
         4,
         {inter_thread(SharingType::CoAccessed, AccessPattern::Regular,
                       {p.nfeatures, p.nclusters, 1}, {per_dim, per_dim, 1}, {0, 0, 0})}},
        {"membership_d", p.membership, std::uint64_t{p.npoints} * 4, 4, {no_reuse()}}};
    KernelShape s;
    s.name = "kmeansPoint";
    s.grid = {per_dim, per_dim, 1};
    s.block = {kThreads, 1, 1};
    s.regs_per_thread = 16;
    ks.push_back(make_grid_kernel<PointStream>(std::move(s), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "kmeans",
      "Rodinia kmeans, " + std::to_string(p.npoints) + " points x " + std::to_string(p.nfeatures) +
          " features, " + std::to_string(p.nclusters) + " clusters, " + std::to_string(iters) +
          " iterations",
      std::move(ks));
}

}  // namespace

WorkloadInfo kmeans_workload() {
  return {"kmeans",
          "Rodinia",
          "k-means assignment: every thread reads its point and all cluster centres",
          "points=4096, features=34, clusters=5, iterations=2",
          params(),
          make_kmeans};
}

}  // namespace locsim
