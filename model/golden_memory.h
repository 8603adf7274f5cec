// Golden functional memory for the data-integrity mode. Stores write deterministic values
// (store_word of the kernel), atomics add per-word counts, and kernels are the ordering points:
// within a kernel a load may legally observe a byte either as it was at kernel start or as stored
// by the kernel (unsynchronised races), and an atomic may return any value between the word's
// kernel-start value and that value plus the adds issued so far. At kernel end the expected memory
// image is known exactly, except for a word that one kernel both stored and atomically added to:
// its value depends on the order in which the stores and adds reached memory, so it is checked
// against every order that is possible (OrderDependentWord) and the value memory really holds is
// committed for the next kernels.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/functional_memory.h"
#include "model/types.h"

namespace locsim {

// A word one kernel both stored (bytes `stored`) and added to `adds` times: every interleaving
// of the stores (all writing `stored_value`) and the adds is legal.
struct OrderDependentWord {
  Addr addr = 0;
  std::uint8_t stored = 0;  // bit i: byte i stored
  std::uint32_t base = 0;   // value at kernel start
  std::uint32_t stored_value = 0;
  std::uint32_t adds = 0;
  // True if some order of the stores and adds leaves `v` in memory: after all `adds`
  // (all_adds_done), or part way through (an atomic's returned old value).
  bool feasible(std::uint32_t v, bool all_adds_done) const;
};

class GoldenMemory {
 public:
  void begin_kernel(std::uint32_t kernel_seq);
  // Records a store of `bytes` (mask over a line at line_addr); returns the data to write
  // (line-sized buffer `out`, only masked bytes meaningful).
  void store(Addr line_addr, const ByteMask& bytes, std::uint32_t line_bytes, std::uint8_t* out);
  // Records `count` atomic adds of 1 to the 32-bit word at word_addr.
  void atomic_add(Addr word_addr, std::uint32_t count);
  // Checks loaded bytes; returns an empty string or a description of the first bad byte.
  std::string check_load(Addr line_addr, const ByteMask& bytes, std::uint32_t line_bytes,
                         const std::uint8_t* data) const;
  // Checks an atomic's returned old value for a word that received `count` adds from it.
  std::string check_atomic(Addr word_addr, std::uint32_t old_value, std::uint32_t count) const;
  // Ends the kernel: applies its stores and atomics; returns the words (4-byte aligned) whose
  // final value must now be verified, with their expected value. Words both stored and added to
  // go to `order_dependent` (if given) and are not committed: the caller checks the value memory
  // holds with OrderDependentWord::feasible and commits it with commit_word.
  std::vector<std::pair<Addr, std::uint32_t>> end_kernel(
      std::vector<OrderDependentWord>* order_dependent = nullptr);
  void commit_word(Addr word_addr, std::uint32_t v) { committed_.write_word(word_addr, v); }
  std::uint32_t committed_word(Addr word_addr) const { return committed_.read_word(word_addr); }

 private:
  struct KernelWord {
    std::uint8_t stored_bytes = 0;  // bit i: byte i stored this kernel
    std::uint32_t atomic_adds = 0;
  };
  std::uint32_t kernel_seq_ = 0;
  FunctionalMemory committed_;
  std::unordered_map<Addr, KernelWord> kernel_;
};

}  // namespace locsim
