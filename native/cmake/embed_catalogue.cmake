# cmake -DIN=<catalogue/algorithms.json> -DOUT=<file.cpp> -P embed_catalogue.cmake
# Writes a C++ source that holds the catalogue file's text (native/src/core/algorithms.cpp parses
# it at start-up), so the runner needs no file at run time and a build always carries the
# catalogue it was built from. A file that is not JSON fails the build here, not at run time.
file(READ "${IN}" text)
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  string(JSON count ERROR_VARIABLE err LENGTH "${text}" algorithms)
  if(err)
    message(FATAL_ERROR "${IN}: not a catalogue (an object with an array 'algorithms'): ${err}")
  endif()
endif()
string(FIND "${text}" ")cbcatalogue\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN}: contains the raw string delimiter )cbcatalogue\"")
endif()
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by native/cmake/embed_catalogue.cmake: edit that file, not this one.\n"
  "namespace cb {\n"
  "extern const char* const kCatalogueJson;\n"
  "const char* const kCatalogueJson = R\"cbcatalogue(${text})cbcatalogue\";\n"
  "}  // namespace cb\n")
file(RENAME "${OUT}.tmp" "${OUT}")
