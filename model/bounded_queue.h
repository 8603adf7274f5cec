// FIFO with a fixed capacity (miss queues, NoC buffers, response FIFOs).
#pragma once
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace locsim {

// Kept on a power-of-two ring that grows (doubling) up to the capacity: once warmed up a push or
// a pop is an index update, without std::deque's block management.
template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : cap_(capacity) {}
  std::size_t capacity() const { return cap_; }
  std::size_t size() const { return tail_ - head_; }
  bool empty() const { return head_ == tail_; }
  bool full() const { return size() >= cap_; }
  // Returns false (and leaves the queue unchanged) when full.
  bool push(T v) {
    if (full()) return false;
    if (size() == buf_.size()) grow();
    buf_[tail_++ & mask_] = std::move(v);
    return true;
  }
  T& front() { return buf_[head_ & mask_]; }
  const T& front() const { return buf_[head_ & mask_]; }
  T pop() { return std::move(buf_[head_++ & mask_]); }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator(const BoundedQueue* q, std::size_t i) : q_(q), i_(i) {}
    reference operator*() const { return q_->buf_[i_ & q_->mask_]; }
    pointer operator->() const { return &**this; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator t = *this;
      ++i_;
      return t;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const BoundedQueue* q_;
    std::size_t i_;
  };
  const_iterator begin() const { return const_iterator(this, head_); }
  const_iterator end() const { return const_iterator(this, tail_); }

 private:
  void grow() {
    std::vector<T> b(buf_.empty() ? 4 : 2 * buf_.size());
    const std::size_t n = size();
    for (std::size_t i = 0; i < n; ++i) b[i] = std::move(buf_[(head_ + i) & mask_]);
    buf_.swap(b);
    head_ = 0;
    tail_ = n;
    mask_ = buf_.size() - 1;
  }
  std::size_t cap_;
  std::vector<T> buf_;
  std::size_t head_ = 0, tail_ = 0, mask_ = 0;  // head_ <= tail_, counted, not wrapped
};

}  // namespace locsim
