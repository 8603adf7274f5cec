// FIFO with a fixed capacity (miss queues, NoC buffers, response FIFOs).
#pragma once
#include <cstddef>
#include <deque>

namespace locsim {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : cap_(capacity) {}
  std::size_t capacity() const { return cap_; }
  std::size_t size() const { return q_.size(); }
  bool empty() const { return q_.empty(); }
  bool full() const { return q_.size() >= cap_; }
  // Returns false (and leaves the queue unchanged) when full.
  bool push(T v) {
    if (full()) return false;
    q_.push_back(std::move(v));
    return true;
  }
  T& front() { return q_.front(); }
  const T& front() const { return q_.front(); }
  T pop() {
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }
  typename std::deque<T>::const_iterator begin() const { return q_.begin(); }
  typename std::deque<T>::const_iterator end() const { return q_.end(); }

 private:
  std::size_t cap_;
  std::deque<T> q_;
};

}  // namespace locsim
