// The source of the target that compiles cmake/PrecompiledHeaders.h once
// for every tad library (tad_add_library in CMakeLists.txt).
