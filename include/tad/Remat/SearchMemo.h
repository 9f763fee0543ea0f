//===- SearchMemo.h - the solver's answers, shared --------------*- C++ -*-===//
//
// tad-choose-loop-snapshots schedules a dozen differentiated copies of one
// program, and most of a copy's loop bodies and functions are the graphs
// of the copies before it: the exact searches' answers for them (the least
// budget of a loop body, a whole-graph search at one budget) are the same.
// A SearchMemo keeps them for the compile, on every thread.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_SEARCHMEMO_H
#define TAD_REMAT_SEARCHMEMO_H

#include "tad/Remat/Graph.h"

#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace tad::remat {

/// A graph as bytes, for a question's key: every field that a schedule's
/// feasibility and cost depend on (not the names).
std::string graphKey(const Graph &graph);

/// The key of a question about `graph` with these parameters (numbers),
/// as bytes.
template <typename... Parameters>
std::string questionKey(const Graph &graph, Parameters... parameters) {
  std::string key;
  (key.append(reinterpret_cast<const char *>(&parameters), sizeof(parameters)),
   ...);
  return key + graphKey(graph);
}

/// Answers of pure searches, by their question (a key that holds the graph
/// and every parameter the answer depends on); safe to share between
/// threads. A search that was stopped answers nothing, and is not kept.
template <typename Answer> class SearchMemo {
public:
  /// The kept answer to `question`, or `search`'s, kept when `keep` (the
  /// search was not stopped) says so. Two threads asking at once may both
  /// search: the answers are the same.
  Answer answer(
      const std::string &question, const std::function<Answer()> &search,
      const std::function<bool()> &keep = [] { return true; }) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = answers.find(question);
      if (it != answers.end())
        return it->second;
    }
    Answer found = search();
    if (keep()) {
      std::lock_guard<std::mutex> lock(mutex);
      answers.emplace(question, found);
    }
    return found;
  }

private:
  std::mutex mutex;
  std::map<std::string, Answer> answers;
};

} // namespace tad::remat

#endif // TAD_REMAT_SEARCHMEMO_H
