#include <sodium.h>
