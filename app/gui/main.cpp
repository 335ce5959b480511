// hearth: the desktop app (app_main.cpp has its start).
#include "app/gui/app_main.h"

int main(int argc, char** argv) {
    return hearth::app::runHearth(argc, argv);
}
