//===- Chain.h - optimal schedules of gradient chains -----------*- C++ -*-===//
//
// The gradient of a chain of n steps is the graph f_1 .. f_n (f_i reads
// f_{i-1}) followed by b_n .. b_1 (b_i reads f_i and b_{i+1}), with any
// costs and sizes: heterogeneous chains, as in the rotor algorithm of
// Beaumont, Eyraud-Dubois, Herrmann, Joly and Shilova (2019). For them a
// dynamic program finds the cheapest schedule exactly (Chain.cpp explains
// it): for the part of the chain between a resident f_s and a resident
// b_{t+1}, the point k to advance f_s to, whether to hold f_k until b_k,
// and whether f_s stays resident meanwhile.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_CHAIN_H
#define TAD_REMAT_CHAIN_H

#include "tad/Remat/Graph.h"

namespace tad::remat {

/// The longest chain the dynamic program takes. Its state space grows as n^3
/// times the distinct byte counts held, and its time as up to n^6; bounds
/// prune most of it (a few ms at 24 steps: bench/remat/solvers.py), and
/// kChainWorkLimit caps the rest.
constexpr int kMaxChainSteps = 64;

/// Whether `graph` is the gradient of a chain: n forward nodes, then n
/// backward nodes in reverse order, with exactly the edges above, all
/// recomputable and without transient bytes. Sets `steps` to n.
bool isGradientChain(const Graph &graph, int &steps);

enum class ChainResult { optimal, infeasible, notAChain, tooLarge };

/// How many candidate moves the dynamic program tries before it gives up:
/// about 30 ms on the development machine (some 35 000 per ms).
constexpr int64_t kChainWorkLimit = int64_t(1) << 20;

/// The cheapest schedule of a gradient chain within `budget`. Returns
/// tooLarge, without a schedule, when the chain has more than
/// kMaxChainSteps steps or the program would try more than `workLimit`
/// candidate moves.
ChainResult chainSchedule(const Graph &graph, int64_t budget,
                          std::vector<Event> &schedule,
                          int64_t workLimit = kChainWorkLimit);

} // namespace tad::remat

#endif // TAD_REMAT_CHAIN_H
