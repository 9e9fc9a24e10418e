// CLinux is header-only; SwiftPM wants one C source per C target.
#include "CLinux.h"
