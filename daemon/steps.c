/* daemon/steps.c — every step kind, by enum dmn_step_kind (daemon/step_list.h: one line per kind). */
#include "daemon/step.h"

const struct dmn_step_def *const dmn_steps[DMN_NKINDS] = {
#define DMN_STEP(E, name) [DMN_##E] = &dmn_step_##name,
#include "daemon/step_list.h"
#undef DMN_STEP
};
