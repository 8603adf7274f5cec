// Parboil histo (CUDA base version), histo_main_kernel: the kernel of seed 000's Figs. 1, 7-9
// and 12. KB = 24, so BINS_PER_BLOCK = 24K bins of 8 bits packed four to a word in
// __shared__ unsigned sub_histo[24][256], THREADS = 768, grid (BLOCK_X = 14, ranges):
//   clearMemory(sub_histo); __syncthreads();                 // 8 strided shared stores
//   myRange = range_min + blockIdx.y;
//   for (i = blockIdx.x * 768 + tid; i < N; i += 14 * 768) {
//     uchar4 sm = sm_mappings[i];                             // (range, indexhi, indexlo,
//     8*offset) if (sm.range == myRange) {                              // shared atomicAdd of 1 <<
//     offset
//       prev = atomicAdd(&sub_histo[hi][lo], 1 << offset);
//       if (8-bit counter was 255) atomicAdd(&global_overflow[bin], 256);   // (+ cascades)
//     }
//     if (blockIdx.y == 0 && sm.range outside [range_min, range_max]) {
//       old = global_histo[bin / 2];                          // 16-bit saturating counters
//       if (its half < 255) atomicAdd(&global_histo[bin / 2], 1 << 16 * (bin % 2));
//     }
//   }
//   __syncthreads();
//   for (i = tid; i < 6144; i += 768)                         // copyMemory: unpack four bins
//     for (k = 0; k < 4; ++k) atomicAdd(&global_subhisto[myRange * 24K + 4 * i + k], byte k);
// Every CTA of grid column x reads the same 768-element column band of sm_mappings, viewed as
// rows of 14 * 768 elements (Fig. 8): the whole column of CTAs is one C-Tile.
//
// sm_mappings is the output of histo_intermediates_kernel (not modelled). Each element's bin is
// derived from the word the simulated memory holds there (initial_word), so what a lane does is
// decided by the value its load returns. The image is synthetic: Parboil reads a 996x1040 image
// whose statistics we do not have. Bins follow a bell curve (sum of four uniforms) centred on a
// central region of `ranges` 24K-bin ranges, with sigma = region / 20 so that the prescan's
// mean +- 10 sigma rule yields exactly that region; 1/128 of the pixels are outliers spread
// uniformly over the whole histogram (most of them outside the region, on the global path).
// The 8-bit overflow and the 16-bit saturation are decided on the host in scan order (element
// index within a column for the per-CTA counters, element index for the global counters), which
// is one legal interleaving of the real kernel's atomics. The overflow cascade into neighbouring
// bins of the same word is not modelled. The shared atomicAdd is a shared load and a shared store
// of the word (the builder has no shared atomic).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "model/functional_memory.h"
#include "model/params.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo histo_workload();

namespace {

constexpr std::uint32_t kBlockX = 14, kThreads = 768, kBinsPerBlock = 24 * 1024;
constexpr std::uint32_t kSubWords = kBinsPerBlock / 4;   // 6144 packed words in sub_histo
constexpr std::uint32_t kRowElems = kBlockX * kThreads;  // grid-stride of the scan
enum : std::uint16_t { kSmMappings, kSubhisto, kHisto, kOverflow };

enum : std::uint32_t {
  kPcClear = 0x000,
  kPcBar0 = 0x008,
  kPcSetup = 0x010,
  kPcLoad = 0x018,
  kPcDecode = 0x020,
  kPcAtomLd = 0x028,
  kPcAtomSt = 0x030,
  kPcOverflow = 0x038,
  kPcGlobalLd = 0x040,
  kPcGlobalAtom = 0x048,
  kPcLoop = 0x050,
  kPcBar1 = 0x058,
  kPcCopyLd = 0x060,
  kPcCopyAtom = 0x068,  // + 0x08 * k
  kPcExit = 0x088
};

// Per element of sm_mappings: its bin and the two scan-order decisions.
struct Image {
  std::vector<std::uint32_t> bin;
  std::vector<bool> overflow;  // the per-CTA 8-bit counter of its bin wraps on this element
  std::vector<bool> global;    // out of region, and its 16-bit global counter is below 255
};

struct HistoParams {
  std::uint32_t n = 0, ranges = 0, range_min = 0;
  std::shared_ptr<const Image> img;
  Addr sm_mappings = 0, subhisto = 0, histo = 0, overflow = 0;
};

std::uint64_t mix64(std::uint64_t z) {  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::shared_ptr<const Image> make_image(const HistoParams& p, std::uint32_t bins) {
  auto img = std::make_shared<Image>();
  img->bin.resize(p.n);
  const double region = static_cast<double>(p.ranges) * kBinsPerBlock;
  const double centre = static_cast<double>(p.range_min) * kBinsPerBlock + region / 2;
  const double sigma = region / 20;
  // Sum of four 16-bit uniforms: mean 131070, standard deviation 65536 / sqrt(3).
  const double s_mean = 2.0 * 65535, s_sd = 65536 / 1.7320508075688772;
  for (std::uint32_t i = 0; i < p.n; ++i) {
    const std::uint32_t w = initial_word(p.sm_mappings + 4 * Addr{i});
    const std::uint64_t h = mix64(w);
    if ((w & 0x7fu) == 0) {
      img->bin[i] = static_cast<std::uint32_t>(h % bins);
      continue;
    }
    const double s = double(h & 0xffff) + double((h >> 16) & 0xffff) + double((h >> 32) & 0xffff) +
                     double(h >> 48);
    const double b = centre + (s - s_mean) / s_sd * sigma;
    img->bin[i] = static_cast<std::uint32_t>(std::clamp(b, 0.0, double(bins - 1)));
  }
  img->overflow.assign(p.n, false);
  img->global.assign(p.n, false);
  std::vector<std::uint32_t> count(bins, 0);
  for (std::uint32_t x = 0; x < kBlockX; ++x) {  // per grid column, in scan order
    std::fill(count.begin(), count.end(), 0);
    for (std::uint64_t row = 0; row * kRowElems < p.n; ++row)
      for (std::uint32_t t = 0; t < kThreads; ++t) {
        const std::uint64_t i = row * kRowElems + std::uint64_t{x} * kThreads + t;
        if (i >= p.n) break;
        const std::uint32_t r = img->bin[i] / kBinsPerBlock;
        if (r >= p.range_min && r < p.range_min + p.ranges && ++count[img->bin[i]] % 256 == 0)
          img->overflow[i] = true;
      }
  }
  std::fill(count.begin(), count.end(), 0);
  for (std::uint32_t i = 0; i < p.n; ++i) {
    const std::uint32_t r = img->bin[i] / kBinsPerBlock;
    if ((r < p.range_min || r >= p.range_min + p.ranges) && count[img->bin[i]]++ < 255)
      img->global[i] = true;
  }
  return img;
}

class HistoMainStream final : public CoroutineStream {
 public:
  HistoMainStream(const WarpContext& w, const HistoParams& p) : w_(w), p_(p) {
    my_range_ = p.range_min + w.block_idx().y;
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    for (k_ = 0; k_ < kSubWords; k_ += kThreads)
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcClear, all,
                                        [this](unsigned l) { return 4 * Addr{k_ + tid(l)}; }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
    LOCSIM_CO_YIELD(emit_compute(in, kPcSetup, all, 4, kAluLatency));
    for (base_ = std::uint64_t{w_.block_idx().x} * kThreads;
         (mask_ = w_.lanes_where([this](unsigned l) { return elem(l) < p_.n; })) != 0;
         base_ += kRowElems) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLoad, mask_, kSmMappings,
                                [this](unsigned l) { return p_.sm_mappings + 4 * elem(l); }));
      // unpack range/indexhi/indexlo/offset, compare with myRange and the region
      LOCSIM_CO_YIELD(emit_compute(in, kPcDecode, mask_, 6, kAluLatency));
      sub_ = w_.lanes_where([this](unsigned l) {
        return ((mask_ >> l) & 1u) && bin(l) / kBinsPerBlock == my_range_;
      });
      if (sub_) {
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kPcAtomLd, sub_, [this](unsigned l) { return word(l); }));
        LOCSIM_CO_YIELD(
            emit_shared_store(in, kPcAtomSt, sub_, [this](unsigned l) { return word(l); }));
        sub_ = w_.lanes_where(
            [this](unsigned l) { return ((sub_ >> l) & 1u) && p_.img->overflow[elem(l)]; });
        if (sub_)
          LOCSIM_CO_YIELD(emit_atomic(in, kPcOverflow, sub_, kOverflow, [this](unsigned l) {
            return p_.overflow + 4 * Addr{bin(l)};
          }));
      }
      if (w_.block_idx().y == 0) {
        sub_ = w_.lanes_where([this](unsigned l) {
          if (!((mask_ >> l) & 1u)) return false;  // past the image's end: no pixel to read
          const std::uint32_t r = bin(l) / kBinsPerBlock;
          return r < p_.range_min || r >= p_.range_min + p_.ranges;
        });
        if (sub_) {
          LOCSIM_CO_YIELD(emit_load(in, kPcGlobalLd, sub_, kHisto, [this](unsigned l) {
            return p_.histo + 4 * Addr{bin(l) / 2};
          }));
          sub_ = w_.lanes_where(
              [this](unsigned l) { return ((sub_ >> l) & 1u) && p_.img->global[elem(l)]; });
          if (sub_)
            LOCSIM_CO_YIELD(emit_atomic(in, kPcGlobalAtom, sub_, kHisto, [this](unsigned l) {
              return p_.histo + 4 * Addr{bin(l) / 2};
            }));
        }
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcLoop, mask_, 2, kAluLatency));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
    for (k_ = 0; k_ < kSubWords; k_ += kThreads) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcCopyLd, all,
                                       [this](unsigned l) { return 4 * Addr{k_ + tid(l)}; }));
      for (b_ = 0; b_ < 4; ++b_)
        LOCSIM_CO_YIELD(
            emit_atomic(in, kPcCopyAtom + 0x08 * b_, all, kSubhisto, [this](unsigned l) {
              return p_.subhisto +
                     4 * (Addr{my_range_} * kBinsPerBlock + 4 * Addr{k_ + tid(l)} + b_);
            }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t tid(unsigned l) const { return w_.thread_idx(l).x; }
  std::uint64_t elem(unsigned l) const { return base_ + tid(l); }
  std::uint32_t bin(unsigned l) const { return p_.img->bin[elem(l)]; }
  // sub_histo[indexhi][indexlo]: the packed word of the bin within its 24K range.
  Addr word(unsigned l) const { return 4 * Addr{(bin(l) % kBinsPerBlock) / 4}; }

  WarpContext w_;
  HistoParams p_;
  std::uint32_t my_range_ = 0;
  std::uint64_t base_ = 0;
  std::uint32_t k_ = 0, b_ = 0, mask_ = 0, sub_ = 0;
};

WorkloadParamDecls params() {
  return {{"width", {"996", "image width in pixels (Parboil's default dataset)"}},
          {"height", {"1040", "image height in pixels"}},
          {"bins", {"1048576", "histogram bins (histo_width * histo_height)"}},
          {"ranges", {"8", "24K-bin ranges of the central region = gridDim.y"}}};
}

std::unique_ptr<Workload> make_histo(const WorkloadArgs& args) {
  WorkloadArgReader r("histo", params(), args);
  HistoParams p;
  const std::uint32_t width = r.get_u32("width", {1, 16384, 1, ""});
  const std::uint32_t height = r.get_u32("height", {1, 16384, 1, ""});
  const std::uint32_t bins = r.get_u32("bins", {kBinsPerBlock, 1u << 24, 1, ""});
  const std::uint32_t total_ranges = (bins + kBinsPerBlock - 1) / kBinsPerBlock;
  p.ranges = r.get_u32(
      "ranges", {1, total_ranges, 1,
                 "at most the " + std::to_string(total_ranges) + " ranges of the histogram"});
  if (std::uint64_t{width} * height > (1u << 24))
    throw ConfigError("workload 'histo': parameters 'width' and 'height': width*height = " +
                      std::to_string(std::uint64_t{width} * height) +
                      " (must be at most 16777216 pixels)");
  p.n = width * height;
  p.range_min = (total_ranges - p.ranges) / 2;
  const std::uint64_t map_bytes = std::uint64_t{p.n} * 4;
  const std::uint64_t sub_bytes = std::uint64_t{total_ranges} * kBinsPerBlock * 4;
  const std::uint64_t histo_bytes = (std::uint64_t{bins} + 1) / 2 * 4;
  const std::uint64_t overflow_bytes = std::uint64_t{bins} * 4;
  DeviceAllocator alloc;
  p.sm_mappings = alloc.alloc(map_bytes);
  p.subhisto = alloc.alloc(sub_bytes);
  p.histo = alloc.alloc(histo_bytes);
  p.overflow = alloc.alloc(overflow_bytes);
  p.img = make_image(p, bins);
  const std::uint32_t rows = (p.n + kRowElems - 1) / kRowElems;
  // Seed 000 Fig. 9 (Table 2: INTER-THREAD (COACCESSED, REGULAR)): sm_mappings as rows of
  // X_len = 14 * 768 elements; D-Tile (768, Y_len, 1), C-Tile (1, gridDim.y, 1), map (1,0,0),
  // stride X_len. The sub-histograms are written once per CTA, the global histogram and the
  // overflow counters are touched by rare data-dependent atomics: NO-REUSE.
  std::vector<DataStructure> data = {
      {"sm_mappings",
       p.sm_mappings,
       map_bytes,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kThreads, rows, 1},
                     {1, p.ranges, 1}, {1, 0, 0}, kRowElems, 1)},
       {kRowElems, rows, 1}},
      {"global_subhisto", p.subhisto, sub_bytes, 4, {no_reuse()}},
      {"global_histo", p.histo, histo_bytes, 4, {no_reuse()}},
      {"global_overflow", p.overflow, overflow_bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "histo_main_kernel";
  shape.grid = {kBlockX, p.ranges, 1};
  shape.block = {kThreads, 1, 1};
  shape.regs_per_thread = 16;
  shape.shared_mem_bytes = kBinsPerBlock;  // unsigned sub_histo[KB][256]
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<HistoMainStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "histo",
      "Parboil histo main kernel, " + std::to_string(width) + "x" + std::to_string(height) +
          " image, " + std::to_string(bins) + " bins, " + std::to_string(p.ranges) +
          " ranges (14x" + std::to_string(p.ranges) + " CTAs)",
      std::move(ks));
}

}  // namespace

WorkloadInfo histo_workload() {
  return {"histo",
          "Parboil",
          "2-D saturating histogram: each CTA builds one 24K-bin range in shared memory while "
          "scanning a column band of the input",
          "996x1040 image, 1M bins, 8 ranges (14x8 CTAs)",
          params(),
          make_histo};
}

}  // namespace locsim
