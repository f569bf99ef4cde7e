# Concurrency Kit (libck-dev): the peer ring for bench/bench_ring_peer.c.
# ck_ring is header-only, so finding ck_ring.h is enough. Without it the
# peer benchmark is left out of the build (EXCLUDE_FROM_ALL, set once the
# bench targets exist, hence the deferred call) and configure says why.
find_path(LATLAB_CK_INCLUDE_DIR ck_ring.h)
if(LATLAB_CK_INCLUDE_DIR)
  set(LATLAB_HAVE_CK 1)
  message(STATUS "latlab: ck (Concurrency Kit ck_ring): found in ${LATLAB_CK_INCLUDE_DIR}")
else()
  set(LATLAB_HAVE_CK 0)
  message(STATUS "latlab: ck (Concurrency Kit ck_ring): not found (apt-get install -y libck-dev); bench_ring_peer not built")
endif()

function(latlab_ck_bench_target)
  if(NOT TARGET bench_ring_peer)
    return()
  endif()
  if(LATLAB_HAVE_CK)
    target_include_directories(bench_ring_peer PRIVATE ${LATLAB_CK_INCLUDE_DIR})
  else()
    set_target_properties(bench_ring_peer PROPERTIES EXCLUDE_FROM_ALL TRUE)
  endif()
endfunction()
cmake_language(DEFER CALL latlab_ck_bench_target)
