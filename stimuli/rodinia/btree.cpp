// Rodinia b+tree (cuda/b+tree: main.c, kernel/kernel_gpu_cuda.cu, kernel/kernel_gpu_cuda_2.cu).
// The host builds a B+ tree of order DEFAULT_ORDER = 256 by inserting the keys one at a time
// (leaves split at cut(order-1), internal nodes at cut(order)) and flattens it breadth-first into
// an array of
//   struct knode { int location; int indices[order+1]; int keys[order+1]; bool is_leaf;
//                  int num_keys; }                                     (8*order + 20 bytes)
// with keys[0] = INT_MIN, the node's keys in keys[1..], INT_MAX after them, indices[i] = the
// child (knode index) or record that keys[i] starts. Each command launches one CTA per query and
// order threads (threadsPerBlock = min(order, 1024)); every thread compares one key per level:
//   findK:       for (i = 0; i < height; i++) {
//                  if (knodesD[currKnodeD[bid]].keys[thid] <= keysD[bid] &&
//                      knodesD[currKnodeD[bid]].keys[thid+1] > keysD[bid])
//                    if (knodesD[offsetD[bid]].indices[thid] < knodes_elem)
//                      offsetD[bid] = knodesD[offsetD[bid]].indices[thid];
//                  __syncthreads();  if (thid == 0) currKnodeD[bid] = offsetD[bid];
//                  __syncthreads(); }
//                if (knodesD[currKnodeD[bid]].keys[thid] == keysD[bid])
//                  ansD[bid].value = recordsD[knodesD[currKnodeD[bid]].indices[thid]].value;
//   findRangeK:  the same walk twice per level (currKnodeD/offsetD for startD[bid],
//                lastKnodeD/offset_2D for endD[bid]), then RecstartD[bid] from the start leaf,
//                __syncthreads(), ReclenD[bid] = indices - RecstartD[bid] + 1 from the end leaf.
// The tree, the queries and every comparison are computed on the host from a fixed seed, so each
// warp knows which lane matches at each level (data-dependent control flow decided from host
// data, never from simulated loads).
#include <algorithm>
#include <climits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo btree_workload();

namespace {

constexpr std::uint32_t kNoLane = 0xffffffffu;

// ---------------------------------------------------------------------------- host B+ tree
// The pointer-based tree of main.c (insert, insert_into_leaf_after_splitting,
// insert_into_node_after_splitting, insert_into_parent), with nodes in a vector.
class BPlusTree {
 public:
  explicit BPlusTree(std::uint32_t order) : order_(order) {}

  void insert(int key) {
    if (root_ < 0) {
      root_ = new_node(true);
      nodes_[root_].keys.push_back(key);
      return;
    }
    const int leaf = find_leaf(key);
    auto& lk = nodes_[leaf].keys;
    if (lk.size() < order_ - 1) {
      lk.insert(std::upper_bound(lk.begin(), lk.end(), key), key);
      return;
    }
    std::vector<int> temp = lk;  // order keys after the insertion
    temp.insert(std::upper_bound(temp.begin(), temp.end(), key), key);
    const std::size_t split = cut(order_ - 1);
    const int right = new_node(true);
    nodes_[leaf].keys.assign(temp.begin(), temp.begin() + split);
    nodes_[right].keys.assign(temp.begin() + split, temp.end());
    nodes_[right].parent = nodes_[leaf].parent;
    insert_into_parent(leaf, nodes_[right].keys[0], right);
  }

  // transform_to_cuda: breadth-first, knode k at index k; children numbered in queue order.
  struct KNodes {
    std::uint32_t count = 0;
    std::vector<int> keys, indices;  // (order+1) per knode
    std::vector<std::uint8_t> leaf;
    std::uint32_t height = 0;  // edges from the root to a leaf
  };
  KNodes flatten() const {
    KNodes k;
    const std::size_t w = order_ + 1;
    std::vector<int> queue{root_};
    std::uint32_t next_index = 1, record = 0;
    for (std::size_t qi = 0; qi < queue.size(); ++qi) {
      const Node& n = nodes_[queue[qi]];
      k.keys.resize((qi + 1) * w, INT_MAX);  // keys[num_keys-1 .. order] = INT_MAX
      k.indices.resize((qi + 1) * w, 0);
      k.leaf.push_back(n.leaf);
      int* keys = &k.keys[qi * w];
      int* idx = &k.indices[qi * w];
      const std::size_t nk = n.keys.size() + 2;  // num_keys
      keys[0] = INT_MIN;
      for (std::size_t i = 1; i + 1 < nk; ++i) keys[i] = n.keys[i - 1];
      if (!n.leaf) {
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          idx[i] = static_cast<int>(next_index++);
          queue.push_back(n.children[i]);
        }
      } else {
        for (std::size_t i = 1; i + 1 < nk; ++i) idx[i] = static_cast<int>(record++);
      }
      idx[nk - 1] = static_cast<int>(qi + 1);  // indices[num_keys-1] = queueindex
    }
    k.count = static_cast<std::uint32_t>(queue.size());
    for (int c = root_; !nodes_[c].leaf; c = nodes_[c].children[0]) ++k.height;
    return k;
  }

 private:
  struct Node {
    bool leaf = false;
    int parent = -1;
    std::vector<int> keys;
    std::vector<int> children;  // internal nodes: keys.size() + 1
  };

  static std::size_t cut(std::size_t length) {
    return length % 2 == 0 ? length / 2 : length / 2 + 1;
  }

  int new_node(bool leaf) {
    nodes_.emplace_back();
    nodes_.back().leaf = leaf;
    return static_cast<int>(nodes_.size() - 1);
  }

  int find_leaf(int key) const {
    int c = root_;
    while (!nodes_[c].leaf) {
      const auto& ks = nodes_[c].keys;
      const std::size_t i = std::upper_bound(ks.begin(), ks.end(), key) - ks.begin();
      c = nodes_[c].children[i];
    }
    return c;
  }

  void insert_into_parent(int left, int key, int right) {
    const int parent = nodes_[left].parent;
    if (parent < 0) {  // insert_into_new_root
      root_ = new_node(false);
      nodes_[root_].keys = {key};
      nodes_[root_].children = {left, right};
      nodes_[left].parent = nodes_[right].parent = root_;
      return;
    }
    auto& pk = nodes_[parent].keys;
    auto& pc = nodes_[parent].children;
    const std::size_t li = std::find(pc.begin(), pc.end(), left) - pc.begin();
    nodes_[right].parent = parent;
    if (pk.size() < order_ - 1) {
      pk.insert(pk.begin() + li, key);
      pc.insert(pc.begin() + li + 1, right);
      return;
    }
    std::vector<int> tk = pk, tc = pc;  // order keys, order+1 children
    tk.insert(tk.begin() + li, key);
    tc.insert(tc.begin() + li + 1, right);
    const std::size_t split = cut(order_);
    const int nn = new_node(false);
    nodes_[parent].keys.assign(tk.begin(), tk.begin() + (split - 1));
    nodes_[parent].children.assign(tc.begin(), tc.begin() + split);
    const int k_prime = tk[split - 1];
    nodes_[nn].keys.assign(tk.begin() + split, tk.end());
    nodes_[nn].children.assign(tc.begin() + split, tc.end());
    nodes_[nn].parent = nodes_[parent].parent;
    for (int ch : nodes_[nn].children) nodes_[ch].parent = nn;
    insert_into_parent(parent, k_prime, nn);
  }

  std::uint32_t order_;
  int root_ = -1;
  std::vector<Node> nodes_;
};

// One query's walk: the knode and the matching thread per level, then the leaf's equal key.
struct Walk {
  std::vector<std::uint32_t> node;  // height + 1 entries: the knode read at each level, then leaf
  std::vector<std::uint32_t> lane;  // height entries: thid with keys[thid] <= k < keys[thid+1]
  std::uint32_t found = kNoLane;    // thid with keys[thid] == k in the leaf, or kNoLane
};

struct Tree {
  std::uint32_t order = 0;
  BPlusTree::KNodes kn;
  std::uint32_t records = 0;

  const int* keys(std::uint32_t node) const { return &kn.keys[std::size_t{node} * (order + 1)]; }
  const int* indices(std::uint32_t node) const {
    return &kn.indices[std::size_t{node} * (order + 1)];
  }
  Walk walk(int k) const {
    Walk w;
    std::uint32_t cur = 0;
    for (std::uint32_t lvl = 0; lvl < kn.height; ++lvl) {
      w.node.push_back(cur);
      const int* ks = keys(cur);
      std::uint32_t m = kNoLane;
      for (std::uint32_t t = 0; t < order && m == kNoLane; ++t)
        if (ks[t] <= k && ks[t + 1] > k) m = t;
      if (m == kNoLane) throw std::logic_error("btree: no child for a key");
      w.lane.push_back(m);
      cur = static_cast<std::uint32_t>(indices(cur)[m]);  // always < knodes_elem here
    }
    w.node.push_back(cur);
    const int* ks = keys(cur);
    for (std::uint32_t t = 0; t < order; ++t)
      if (ks[t] == k) {
        w.found = t;
        break;
      }
    return w;
  }
};

std::shared_ptr<const Tree> make_tree(std::uint32_t records, std::uint32_t order,
                                      std::uint32_t seed) {
  // mil.txt is replaced by the keys 0..records-1 inserted in a seeded random order.
  std::vector<int> keys(records);
  for (std::uint32_t i = 0; i < records; ++i) keys[i] = static_cast<int>(i);
  std::mt19937 rng(seed);  // mt19937's sequence is fixed by the standard
  for (std::uint32_t i = records; i > 1; --i) std::swap(keys[i - 1], keys[rng() % i]);
  BPlusTree bt(order);
  for (int k : keys) bt.insert(k);
  auto t = std::make_shared<Tree>();
  t->order = order;
  t->records = records;
  t->kn = bt.flatten();
  return t;
}

// (rand()/(float)RAND_MAX)*size: uniform in [0, size].
int draw_key(std::mt19937& rng, std::uint32_t size) {
  return static_cast<int>((std::uint64_t{rng()} * (std::uint64_t{size} + 1)) >> 32);
}

std::uint32_t knode_bytes(std::uint32_t order) {
  return 8 * order + 20;
}
Addr indices_off(std::uint32_t) {
  return 4;
}
Addr keys_off(std::uint32_t order) {
  return 4 + 4 * (Addr{order} + 1);
}

// Lanes of warp `w` whose thid is in [lo, hi] (thid = 32*w + lane).
std::uint32_t lane_range(const WarpContext& w, std::uint32_t lo, std::uint32_t hi) {
  return w.lanes_where([&](unsigned l) {
    const std::uint32_t t = w.thread_idx(l).x;
    return t >= lo && t <= hi;
  });
}
std::uint32_t lane_of(const WarpContext& w, std::uint32_t thid) {
  return thid == kNoLane ? 0 : lane_range(w, thid, thid);
}

// ---------------------------------------------------------------------------- findK
enum : std::uint16_t { kKnodes, kRecords, kCurr, kOffset, kKeys, kAns };

enum : std::uint32_t {
  kPcInit = 0x00,
  kPcLdCurr = 0x08,
  kPcLdKey = 0x10,
  kPcLdQuery = 0x18,
  kPcCmp1 = 0x20,
  kPcLdKeyNext = 0x28,
  kPcCmp2 = 0x30,
  kPcLdOffset = 0x38,
  kPcLdIdx = 0x40,
  kPcCmpElem = 0x48,
  kPcStOffset = 0x50,
  kPcBar0 = 0x58,
  kPcLdOffset0 = 0x60,
  kPcStCurr = 0x68,
  kPcBar1 = 0x70,
  kPcLoop = 0x78,
  kPcLdCurrF = 0x80,
  kPcLdKeyF = 0x88,
  kPcLdQueryF = 0x90,
  kPcCmpF = 0x98,
  kPcLdIdxF = 0xa0,
  kPcLdRecord = 0xa8,
  kPcStAns = 0xb0,
  kPcExit = 0xb8
};

struct FindKParams {
  std::shared_ptr<const Tree> tree;
  std::shared_ptr<const std::vector<Walk>> walks;  // one per query (CTA)
  Addr knodes = 0, records = 0, curr = 0, offset = 0, keys = 0, ans = 0;
};

class FindKStream final : public CoroutineStream {
 public:
  FindKStream(const WarpContext& w, const FindKParams& p)
      : w_(w), p_(p), walk_((*p.walks)[w.block_idx().x]) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    const Addr bid = w_.block_idx().x;
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcInit, all, 2, kAluLatency));
    for (lvl_ = 0; lvl_ < p_.tree->kn.height; ++lvl_) {
      node_ = walk_.node[lvl_];
      LOCSIM_CO_YIELD(emit_load(
          in, kPcLdCurr, all, kCurr, [&](unsigned) { return p_.curr + 8 * bid; }, 8));
      LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdKey, all, kKnodes,
                                          [this](unsigned l) { return key(l, 0); }));
      LOCSIM_CO_YIELD(
          emit_load(in, kPcLdQuery, all, kKeys, [&](unsigned) { return p_.keys + 4 * bid; }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcCmp1, all, 1, kAluLatency));
      le_ = lane_range(w_, 0, walk_.lane[lvl_]);  // keys[thid] <= key: the && loads keys[thid+1]
      if (le_) {
        LOCSIM_CO_YIELD(
            emit_load(in, kPcLdKeyNext, le_, kKnodes, [this](unsigned l) { return key(l, 1); }));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcCmp2, all, 2, kAluLatency));
      match_ = lane_of(w_, walk_.lane[lvl_]);
      if (match_) {
        LOCSIM_CO_YIELD(emit_load(
            in, kPcLdOffset, match_, kOffset, [&](unsigned) { return p_.offset + 8 * bid; }, 8));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdIdx, match_, kKnodes, [this](unsigned l) {
          return p_.knodes + Addr{node_} * knode_bytes(order()) + indices_off(order()) +
                 4 * thid(l);
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcCmpElem, match_, 1, kAluLatency));
        LOCSIM_CO_YIELD(emit_store(
            in, kPcStOffset, match_, kOffset, [&](unsigned) { return p_.offset + 8 * bid; }, 8));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
      if (w_.warp() == 0) {  // thid == 0
        LOCSIM_CO_YIELD(emit_load(
            in, kPcLdOffset0, 1u, kOffset, [&](unsigned) { return p_.offset + 8 * bid; }, 8));
        LOCSIM_CO_YIELD(emit_store(
            in, kPcStCurr, 1u, kCurr, [&](unsigned) { return p_.curr + 8 * bid; }, 8));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
      LOCSIM_CO_YIELD(emit_compute(in, kPcLoop, all, 2, kAluLatency));  // i++, i < height
    }
    node_ = walk_.node.back();
    LOCSIM_CO_YIELD(emit_load(
        in, kPcLdCurrF, all, kCurr, [&](unsigned) { return p_.curr + 8 * bid; }, 8));
    LOCSIM_CO_YIELD(
        emit_dependent_load(in, kPcLdKeyF, all, kKnodes, [this](unsigned l) { return key(l, 0); }));
    LOCSIM_CO_YIELD(
        emit_load(in, kPcLdQueryF, all, kKeys, [&](unsigned) { return p_.keys + 4 * bid; }));
    LOCSIM_CO_YIELD(emit_compute(in, kPcCmpF, all, 1, kAluLatency));
    match_ = lane_of(w_, walk_.found);
    if (match_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdIdxF, match_, kKnodes, [this](unsigned l) {
        return p_.knodes + Addr{node_} * knode_bytes(order()) + indices_off(order()) + 4 * thid(l);
      }));
      LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdRecord, match_, kRecords, [this](unsigned l) {
        return p_.records + 4 * Addr(p_.tree->indices(node_)[thid(l)]);
      }));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcStAns, match_, kAns, [&](unsigned) { return p_.ans + 4 * bid; }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t order() const { return p_.tree->order; }
  std::uint32_t thid(unsigned l) const { return w_.thread_idx(l).x; }
  // &knodesD[node_].keys[thid + plus]
  Addr key(unsigned l, std::uint32_t plus) const {
    return p_.knodes + Addr{node_} * knode_bytes(order()) + keys_off(order()) +
           4 * Addr{thid(l) + plus};
  }

  WarpContext w_;
  FindKParams p_;
  const Walk& walk_;
  std::uint32_t lvl_ = 0, node_ = 0, le_ = 0, match_ = 0;
};

// ---------------------------------------------------------------------------- findRangeK
enum : std::uint16_t {
  kRKnodes,
  kRCurr,
  kROffset,
  kRLast,
  kROffset2,
  kRStart,
  kREnd,
  kRRecstart,
  kRReclen
};

enum : std::uint32_t {
  kPcRInit = 0x00,
  kPcRLdCurr = 0x08,
  kPcRLdKey = 0x10,
  kPcRLdStart = 0x18,
  kPcRCmp1 = 0x20,
  kPcRLdKeyNext = 0x28,
  kPcRCmp2 = 0x30,
  kPcRLdIdx = 0x38,
  kPcRCmpElem = 0x40,
  kPcRStOffset = 0x48,
  kPcRLdLast = 0x50,
  kPcRLdKey2 = 0x58,
  kPcRLdEnd = 0x60,
  kPcRCmp3 = 0x68,
  kPcRLdKeyNext2 = 0x70,
  kPcRCmp4 = 0x78,
  kPcRLdIdx2 = 0x80,
  kPcRCmpElem2 = 0x88,
  kPcRStOffset2 = 0x90,
  kPcRBar0 = 0x98,
  kPcRLdOffset = 0xa0,
  kPcRStCurr = 0xa8,
  kPcRLdOffset2 = 0xb0,
  kPcRStLast = 0xb8,
  kPcRBar1 = 0xc0,
  kPcRLoop = 0xc8,
  kPcRLdCurrF = 0xd0,
  kPcRLdKeyF = 0xd8,
  kPcRLdStartF = 0xe0,
  kPcRCmpF = 0xe8,
  kPcRLdIdxF = 0xf0,
  kPcRStRecstart = 0xf8,
  kPcRBar2 = 0x100,
  kPcRLdLastF = 0x108,
  kPcRLdKey2F = 0x110,
  kPcRLdEndF = 0x118,
  kPcRCmp2F = 0x120,
  kPcRLdIdx2F = 0x128,
  kPcRLdRecstart = 0x130,
  kPcRSub = 0x138,
  kPcRStReclen = 0x140,
  kPcRExit = 0x148
};

struct RangeParams {
  std::shared_ptr<const Tree> tree;
  std::shared_ptr<const std::vector<Walk>> starts, ends;  // one per query (CTA)
  Addr knodes = 0, curr = 0, offset = 0, last = 0, offset2 = 0, start = 0, end = 0, recstart = 0,
       reclen = 0;
};

class FindRangeKStream final : public CoroutineStream {
 public:
  FindRangeKStream(const WarpContext& w, const RangeParams& p)
      : w_(w), p_(p), ws_((*p.starts)[w.block_idx().x]), we_((*p.ends)[w.block_idx().x]) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    const Addr bid = w_.block_idx().x;
    auto word = [bid](Addr base, Addr size) { return [=](unsigned) { return base + size * bid; }; };
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcRInit, all, 2, kAluLatency));
    for (lvl_ = 0; lvl_ < p_.tree->kn.height; ++lvl_) {
      // start key: currKnodeD / offsetD
      node_ = ws_.node[lvl_];
      LOCSIM_CO_YIELD(emit_load(in, kPcRLdCurr, all, kRCurr, word(p_.curr, 8), 8));
      LOCSIM_CO_YIELD(emit_dependent_load(in, kPcRLdKey, all, kRKnodes,
                                          [this](unsigned l) { return key(l, 0); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcRLdStart, all, kRStart, word(p_.start, 4)));
      LOCSIM_CO_YIELD(emit_compute(in, kPcRCmp1, all, 1, kAluLatency));
      le_ = lane_range(w_, 0, ws_.lane[lvl_]);
      if (le_) {
        LOCSIM_CO_YIELD(
            emit_load(in, kPcRLdKeyNext, le_, kRKnodes, [this](unsigned l) { return key(l, 1); }));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcRCmp2, all, 2, kAluLatency));
      match_ = lane_of(w_, ws_.lane[lvl_]);
      if (match_) {
        LOCSIM_CO_YIELD(
            emit_load(in, kPcRLdIdx, match_, kRKnodes, [this](unsigned l) { return idx(l); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcRCmpElem, match_, 1, kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, kPcRStOffset, match_, kROffset, word(p_.offset, 8), 8));
      }
      // end key: lastKnodeD / offset_2D
      node_ = we_.node[lvl_];
      LOCSIM_CO_YIELD(emit_load(in, kPcRLdLast, all, kRLast, word(p_.last, 8), 8));
      LOCSIM_CO_YIELD(emit_dependent_load(in, kPcRLdKey2, all, kRKnodes,
                                          [this](unsigned l) { return key(l, 0); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcRLdEnd, all, kREnd, word(p_.end, 4)));
      LOCSIM_CO_YIELD(emit_compute(in, kPcRCmp3, all, 1, kAluLatency));
      le_ = lane_range(w_, 0, we_.lane[lvl_]);
      if (le_) {
        LOCSIM_CO_YIELD(
            emit_load(in, kPcRLdKeyNext2, le_, kRKnodes, [this](unsigned l) { return key(l, 1); }));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcRCmp4, all, 2, kAluLatency));
      match_ = lane_of(w_, we_.lane[lvl_]);
      if (match_) {
        LOCSIM_CO_YIELD(
            emit_load(in, kPcRLdIdx2, match_, kRKnodes, [this](unsigned l) { return idx(l); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcRCmpElem2, match_, 1, kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, kPcRStOffset2, match_, kROffset2, word(p_.offset2, 8), 8));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcRBar0, all));
      if (w_.warp() == 0) {  // thid == 0
        LOCSIM_CO_YIELD(emit_load(in, kPcRLdOffset, 1u, kROffset, word(p_.offset, 8), 8));
        LOCSIM_CO_YIELD(emit_store(in, kPcRStCurr, 1u, kRCurr, word(p_.curr, 8), 8));
        LOCSIM_CO_YIELD(emit_load(in, kPcRLdOffset2, 1u, kROffset2, word(p_.offset2, 8), 8));
        LOCSIM_CO_YIELD(emit_store(in, kPcRStLast, 1u, kRLast, word(p_.last, 8), 8));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcRBar1, all));
      LOCSIM_CO_YIELD(emit_compute(in, kPcRLoop, all, 2, kAluLatency));
    }
    // RecstartD[bid] from the start leaf
    node_ = ws_.node.back();
    LOCSIM_CO_YIELD(emit_load(in, kPcRLdCurrF, all, kRCurr, word(p_.curr, 8), 8));
    LOCSIM_CO_YIELD(emit_dependent_load(in, kPcRLdKeyF, all, kRKnodes,
                                        [this](unsigned l) { return key(l, 0); }));
    LOCSIM_CO_YIELD(emit_load(in, kPcRLdStartF, all, kRStart, word(p_.start, 4)));
    LOCSIM_CO_YIELD(emit_compute(in, kPcRCmpF, all, 1, kAluLatency));
    match_ = lane_of(w_, ws_.found);
    if (match_) {
      LOCSIM_CO_YIELD(
          emit_load(in, kPcRLdIdxF, match_, kRKnodes, [this](unsigned l) { return idx(l); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcRStRecstart, match_, kRRecstart, word(p_.recstart, 4)));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcRBar2, all));
    // ReclenD[bid] from the end leaf
    node_ = we_.node.back();
    LOCSIM_CO_YIELD(emit_load(in, kPcRLdLastF, all, kRLast, word(p_.last, 8), 8));
    LOCSIM_CO_YIELD(emit_dependent_load(in, kPcRLdKey2F, all, kRKnodes,
                                        [this](unsigned l) { return key(l, 0); }));
    LOCSIM_CO_YIELD(emit_load(in, kPcRLdEndF, all, kREnd, word(p_.end, 4)));
    LOCSIM_CO_YIELD(emit_compute(in, kPcRCmp2F, all, 1, kAluLatency));
    match_ = lane_of(w_, we_.found);
    if (match_) {
      LOCSIM_CO_YIELD(
          emit_load(in, kPcRLdIdx2F, match_, kRKnodes, [this](unsigned l) { return idx(l); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcRLdRecstart, match_, kRRecstart, word(p_.recstart, 4)));
      LOCSIM_CO_YIELD(emit_compute(in, kPcRSub, match_, 2, kAluLatency));
      LOCSIM_CO_YIELD(emit_store(in, kPcRStReclen, match_, kRReclen, word(p_.reclen, 4)));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcRExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t order() const { return p_.tree->order; }
  std::uint32_t thid(unsigned l) const { return w_.thread_idx(l).x; }
  Addr key(unsigned l, std::uint32_t plus) const {
    return p_.knodes + Addr{node_} * knode_bytes(order()) + keys_off(order()) +
           4 * Addr{thid(l) + plus};
  }
  Addr idx(unsigned l) const {
    return p_.knodes + Addr{node_} * knode_bytes(order()) + indices_off(order()) + 4 * thid(l);
  }

  WarpContext w_;
  RangeParams p_;
  const Walk& ws_;
  const Walk& we_;
  std::uint32_t lvl_ = 0, node_ = 0, le_ = 0, match_ = 0;
};

WorkloadParamDecls params() {
  return {{"records", {"1048576", "keys in the tree (0..records-1, inserted in seeded order)"}},
          {"order", {"256", "tree order = threads per CTA (DEFAULT_ORDER)"}},
          {"queries", {"2048", "findK queries (CTAs); Rodinia's command file: 10000"}},
          {"range_queries", {"1024", "findRangeK queries (CTAs); Rodinia's command file: 6000"}},
          {"range",
           {"3000", "findRangeK range size rSize (at most records; default min(3000, records))"}},
          {"seed", {"1", "seed of the key insertion order and of the queries"}}};
}

std::unique_ptr<Workload> make_btree(const WorkloadArgs& args) {
  WorkloadArgReader r("btree", params(), args);
  const std::uint32_t records = r.get_u32("records", {1, 1u << 24, 1, ""});
  const std::uint32_t order = r.get_u32("order", {4, 1024, 1, ""});
  const std::uint32_t queries = r.get_u32("queries", {0, 65535, 1, ""});
  const std::uint32_t rqueries = r.get_u32("range_queries", {0, 65535, 1, ""});
  // Rodinia rejects rSize > size; the default shrinks with a small tree instead.
  const std::uint32_t range =
      args.count("range") ? r.get_u32("range", {0, records, 1, ""}) : std::min(3000u, records);
  const std::uint32_t seed = r.get_u32("seed", {});
  if (queries + rqueries == 0)
    throw ConfigError(
        "workload 'btree': parameters 'queries' and 'range_queries' are both 0 (no kernel)");
  auto tree = make_tree(records, order, seed);
  std::mt19937 rng(seed + 1);
  // Rodinia's command file runs "j 6000 3000" then "k 10000": findRangeK first, then findK.
  auto starts = std::make_shared<std::vector<Walk>>();
  auto ends = std::make_shared<std::vector<Walk>>();
  for (std::uint32_t i = 0; i < rqueries; ++i) {
    int s = draw_key(rng, records);
    int e = s + static_cast<int>(range);
    if (e >= static_cast<int>(records)) {
      s -= e - static_cast<int>(records);
      e = static_cast<int>(records) - 1;
    }
    starts->push_back(tree->walk(s));
    ends->push_back(tree->walk(e));
  }
  auto walks = std::make_shared<std::vector<Walk>>();
  for (std::uint32_t i = 0; i < queries; ++i) walks->push_back(tree->walk(draw_key(rng, records)));

  const std::uint32_t kn = tree->kn.count;
  const std::uint64_t knodes_bytes = std::uint64_t{kn} * knode_bytes(order);
  const std::uint32_t threads = std::min<std::uint32_t>(order, 1024);
  DeviceAllocator alloc;
  const Addr knodes = alloc.alloc(knodes_bytes);
  // The whole tree is one D-Tile shared by every CTA; the walk is data-dependent but every query
  // reads the root and most of them the upper levels: INTER-THREAD (COACCESSED, IRREGULAR).
  auto tree_desc = [&](std::uint32_t ctas) {
    return inter_thread(SharingType::CoAccessed, AccessPattern::Irregular, {kn, 1, 1}, {ctas, 1, 1},
                        {0, 0, 0});
  };
  // A per-query word (currKnodeD[bid], keysD[bid], ...) read by every thread of its CTA:
  // INTER-THREAD (COACCESSED, REGULAR) with one-element D-Tiles mapped 1:1 onto CTAs.
  const auto per_cta = inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {1, 1, 1},
                                    {1, 1, 1}, {1, 0, 0});
  std::vector<std::unique_ptr<Kernel>> ks;
  if (rqueries) {
    RangeParams p;
    p.tree = tree;
    p.starts = starts;
    p.ends = ends;
    p.knodes = knodes;
    const std::uint64_t n = rqueries;
    p.curr = alloc.alloc(n * 8);
    p.offset = alloc.alloc(n * 8);
    p.last = alloc.alloc(n * 8);
    p.offset2 = alloc.alloc(n * 8);
    p.start = alloc.alloc(n * 4);
    p.end = alloc.alloc(n * 4);
    p.recstart = alloc.alloc(n * 4);
    p.reclen = alloc.alloc(n * 4);
    std::vector<DataStructure> data = {
        {"knodesD", knodes, knodes_bytes, knode_bytes(order), {tree_desc(rqueries)}},
        {"currKnodeD", p.curr, n * 8, 8, {per_cta}},
        {"offsetD", p.offset, n * 8, 8, {per_cta}},
        {"lastKnodeD", p.last, n * 8, 8, {per_cta}},
        {"offset_2D", p.offset2, n * 8, 8, {per_cta}},
        {"startD", p.start, n * 4, 4, {per_cta}},
        {"endD", p.end, n * 4, 4, {per_cta}},
        // written by the start leaf's matching thread, read back by the end leaf's
        {"RecstartD", p.recstart, n * 4, 4, {per_cta}},
        {"ReclenD", p.reclen, n * 4, 4, {no_reuse()}}};  // written once
    KernelShape s;
    s.name = "findRangeK";
    s.grid = {rqueries, 1, 1};
    s.block = {threads, 1, 1};
    s.regs_per_thread = 16;
    ks.push_back(make_grid_kernel<FindRangeKStream>(std::move(s), std::move(data), p));
  }
  if (queries) {
    FindKParams p;
    p.tree = tree;
    p.walks = walks;
    p.knodes = knodes;
    const std::uint64_t n = queries;
    p.records = alloc.alloc(std::uint64_t{records} * 4);
    p.curr = alloc.alloc(n * 8);
    p.offset = alloc.alloc(n * 8);
    p.keys = alloc.alloc(n * 4);
    p.ans = alloc.alloc(n * 4);
    std::vector<DataStructure> data = {
        {"knodesD", knodes, knodes_bytes, knode_bytes(order), {tree_desc(queries)}},
        // one record per query, at a data-dependent index
        {"recordsD", p.records, std::uint64_t{records} * 4, 4, {no_reuse()}},
        {"currKnodeD", p.curr, n * 8, 8, {per_cta}},
        {"offsetD", p.offset, n * 8, 8, {per_cta}},
        {"keysD", p.keys, n * 4, 4, {per_cta}},
        {"ansD", p.ans, n * 4, 4, {no_reuse()}}};  // written once
    KernelShape s;
    s.name = "findK";
    s.grid = {queries, 1, 1};
    s.block = {threads, 1, 1};
    s.regs_per_thread = 14;
    ks.push_back(make_grid_kernel<FindKStream>(std::move(s), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "btree",
      "Rodinia b+tree, " + std::to_string(records) + " records, order " + std::to_string(order) +
          ", " + std::to_string(kn) + " knodes, height " + std::to_string(tree->kn.height) + ", " +
          std::to_string(rqueries) + " range + " + std::to_string(queries) + " key queries",
      std::move(ks));
}

}  // namespace

WorkloadInfo btree_workload() {
  return {"btree",
          "Rodinia",
          "B+ tree search, findRangeK and findK (one CTA per query) on a seeded tree",
          "records=1M, order=256, queries=2048, range_queries=1024, range=3000, seed=1",
          params(),
          make_btree,
          // PAVER Table 2: 10000 TBs (findK, Rodinia's command file; findRangeK: 6000).
          {{"paver", {{"queries", "10000"}, {"range_queries", "6000"}}}}};
}

}  // namespace locsim
