// confcrypt: encrypted configuration values and files. See docs/confcrypt.md.
#include "confcrypt/cli.hpp"

int main(int argc, char** argv) { return confcrypt::run_cli(argc, argv); }
