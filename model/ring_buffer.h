// FIFO on a power-of-two ring that doubles when full: once warmed up it never allocates, which
// matters for the per-packet queues of the network models (bounded by their buffers anyway).
#pragma once
#include <cstdint>
#include <vector>

namespace locsim {

template <class T>
class RingBuffer {
 public:
  // Room for `capacity` items (rounded up to a power of two) before the first growth.
  explicit RingBuffer(std::uint32_t capacity = 4) {
    std::uint32_t n = 1;
    while (n < capacity) n *= 2;
    buf_.resize(n);
    mask_ = n - 1;
  }
  bool empty() const { return head_ == tail_; }
  std::uint32_t size() const { return tail_ - head_; }
  T& front() { return buf_[head_ & mask_]; }
  const T& front() const { return buf_[head_ & mask_]; }
  T& operator[](std::uint32_t i) { return buf_[(head_ + i) & mask_]; }
  const T& operator[](std::uint32_t i) const { return buf_[(head_ + i) & mask_]; }
  void push_back(const T& v) {
    if (size() > mask_) grow();
    buf_[tail_++ & mask_] = v;
  }
  void pop_front() { ++head_; }

 private:
  // Out of line: growing is rare, and an inlined allocation would make every caller of
  // push_back() save the registers it uses.
  [[gnu::noinline]] void grow() {
    std::vector<T> b(buf_.size() * 2);
    for (std::uint32_t i = 0; i < size(); ++i) b[i] = (*this)[i];
    tail_ = size();
    head_ = 0;
    buf_.swap(b);
    mask_ = static_cast<std::uint32_t>(buf_.size() - 1);
  }
  std::vector<T> buf_;
  std::uint32_t head_ = 0, tail_ = 0, mask_ = 0;
};

}  // namespace locsim
