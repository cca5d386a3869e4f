# Versioned providers (docs/versions.md): other versions of a library, built by `make versions`
# (native/versions/build.py) into the cache outside the clone, ~/.cache/cryptobench/<lib>-<version>-
# <flags-hash>/ (CRYPTOBENCH_CACHE overrides). This file builds nothing of the libraries: for each
# build.json it finds there it compiles the family's adapter again as the module
# cryptobench-providers/<provider>.so, e.g. openssl@3.5.so, with the library linked in statically
# and every symbol of the module hidden (a version script exporting nothing, and
# --exclude-libs), so the system library in the same process stays untouched. The module joins
# the registry of whichever core loaded it (libcryptobench.so in the runner,
# libcryptobench_core.so in confcrypt): its references to the core stay undefined until then.
if(DEFINED ENV{CRYPTOBENCH_CACHE} AND NOT "$ENV{CRYPTOBENCH_CACHE}" STREQUAL "")
  set(CB_VERSIONS_CACHE_DEFAULT "$ENV{CRYPTOBENCH_CACHE}")
else()
  set(CB_VERSIONS_CACHE_DEFAULT "$ENV{HOME}/.cache/cryptobench")
endif()
set(CB_VERSIONS_CACHE "${CB_VERSIONS_CACHE_DEFAULT}" CACHE PATH
    "Where make versions put the libraries of versioned providers")
option(CB_VERSIONED_PROVIDERS "Build adapters for the versions found in CB_VERSIONS_CACHE" ON)

set(CB_VERSIONED "")
set(CB_VERSIONS_EXPORTS "${CMAKE_CURRENT_BINARY_DIR}/generated/versioned-module.map")
file(WRITE "${CB_VERSIONS_EXPORTS}" "{ local: *; };\n")

function(cb_versioned_provider record)
  file(READ "${record}" json)
  # Other builds share the cache (liboqs for the post-quantum work): a record without what a
  # versioned provider needs is not one, and is left alone.
  foreach(field provider adapter version crate seconds flags libraries)
    string(JSON value ERROR_VARIABLE missing GET "${json}" ${field})
    if(missing)
      message(STATUS "cryptobench: ${record} is not a versioned provider's build; skipped")
      return()
    endif()
  endforeach()
  string(JSON name GET "${json}" provider)
  string(JSON adapter GET "${json}" adapter)
  string(JSON version GET "${json}" version)
  string(JSON crate GET "${json}" crate)
  string(JSON seconds GET "${json}" seconds)
  # CMake reads 1026.1 back as 1026.0999999999999: the record says tenths of a second.
  if(seconds MATCHES "^([0-9]+)\\.([0-9])([0-9]?)")
    math(EXPR tenths "${CMAKE_MATCH_1} * 10 + ${CMAKE_MATCH_2}")
    if(NOT CMAKE_MATCH_3 STREQUAL "" AND CMAKE_MATCH_3 GREATER_EQUAL 5)
      math(EXPR tenths "${tenths} + 1")
    endif()
    math(EXPR whole "${tenths} / 10")
    math(EXPR tenth "${tenths} % 10")
    set(seconds "${whole}.${tenth}")
  endif()
  string(JSON nflags LENGTH "${json}" flags)
  set(flags "")
  if(nflags GREATER 0)
    math(EXPR last "${nflags} - 1")
    foreach(i RANGE ${last})
      string(JSON f GET "${json}" flags ${i})
      # A flag may hold a CMake list (liboqs's OQS_MINIMAL_BUILD=a;b;c): not a list separator here.
      string(REPLACE ";" "," f "${f}")
      string(APPEND flags " ${f}")
    endforeach()
  endif()
  string(STRIP "${flags}" flags)
  get_filename_component(home "${record}" DIRECTORY)
  # The cache is shared by every clone and branch on the machine: a build whose provider this
  # tree's versions.json does not give a recipe and the same adapter (a branch built botan@3 or
  # boringssl before this tree's adapter knew it) is not this tree's to compile.
  string(JSON known_adapter ERROR_VARIABLE unknown
    GET "${CB_VERSIONS_JSON}" providers "${name}" adapter)
  string(JSON known_recipe ERROR_VARIABLE unknown_recipe
    GET "${CB_VERSIONS_JSON}" providers "${name}" recipe)
  if(unknown OR unknown_recipe OR known_recipe STREQUAL "" OR NOT known_adapter STREQUAL adapter)
    message(STATUS "cryptobench: ${name}: this tree's versions/versions.json has no recipe for "
      "it with ${adapter}; the build in ${home} ignored")
    return()
  endif()
  # The cache is shared by every clone on the machine: a build made for a clone that has an
  # adapter this one lacks (liboqs.cpp, say) is not this clone's to compile.
  if(NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${adapter}")
    message(STATUS "cryptobench: ${name}: this tree has no ${adapter}; the build in ${home} ignored")
    return()
  endif()
  string(JSON nlibs LENGTH "${json}" libraries)
  set(libs "")
  math(EXPR last "${nlibs} - 1")
  foreach(i RANGE ${last})
    string(JSON l GET "${json}" libraries ${i})
    if(NOT EXISTS "${home}/${l}")
      message(STATUS "cryptobench: ${name}: ${home}/${l} missing; rebuild with make versions")
      return()
    endif()
    list(APPEND libs "${home}/${l}")
  endforeach()
  if(name IN_LIST CB_VERSIONED)
    message(STATUS "cryptobench: ${name}: a second build in ${home} ignored")
    return()
  endif()
  string(REPLACE "@" "_at_" target "cbversion_${name}")
  string(REPLACE "." "_" target "${target}")
  add_library(${target} MODULE ${adapter})
  target_include_directories(${target} PRIVATE "${home}/prefix/include" include)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  # A library whose headers need a newer C++ than the runner's 17 (Botan 3: 20) says so in its
  # record; only its module is compiled so.
  string(JSON cxx_standard ERROR_VARIABLE no_standard GET "${json}" cxx_standard)
  if(NOT no_standard)
    set_target_properties(${target} PROPERTIES CXX_STANDARD ${cxx_standard})
  endif()
  target_compile_definitions(${target} PRIVATE CB_PROVIDER_NAME="${name}"
    CB_BUILD_RECORD="${crate}, ${flags}, built in ${seconds} s")
  # A build with libssl (build.py adds it to an OpenSSL build) offers the in-memory handshake.
  if(libs MATCHES "/libssl\\.a")
    target_compile_definitions(${target} PRIVATE CB_HAS_LIBSSL)
  endif()
  target_link_libraries(${target} PRIVATE nlohmann_json::nlohmann_json ${libs} Threads::Threads
    ${CMAKE_DL_LIBS})
  target_link_options(${target} PRIVATE "LINKER:--exclude-libs,ALL"
    "LINKER:--version-script=${CB_VERSIONS_EXPORTS}")
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME "${name}"
    LIBRARY_OUTPUT_DIRECTORY "${CB_PROVIDER_MODULE_DIR}")
  install(TARGETS ${target} LIBRARY DESTINATION lib/cryptobench-providers)
  set(CB_VERSIONED ${CB_VERSIONED} ${name} PARENT_SCOPE)
  set(CB_VERSIONED_TARGETS ${CB_VERSIONED_TARGETS} ${target} PARENT_SCOPE)
  message(STATUS "cryptobench: versioned provider ${name} (${version}, ${home})")
endfunction()

if(CB_VERSIONED_PROVIDERS)
  file(READ "${CMAKE_CURRENT_SOURCE_DIR}/versions/versions.json" CB_VERSIONS_JSON)
  file(GLOB CB_VERSION_RECORDS "${CB_VERSIONS_CACHE}/*/build.json")
  foreach(record ${CB_VERSION_RECORDS})
    cb_versioned_provider("${record}")
  endforeach()
endif()
string(REPLACE ";" "," CB_VERSIONED_LIST "${CB_VERSIONED}")
