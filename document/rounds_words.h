// msit's -er in words for the window and the hunt: "0,0" is "round 0", "1,3,7,7" is
// "rounds 1-3, 7", "all" is "every round". A text that is not rounds comes back as it was.
#pragma once
#include <QString>

QString roundsWords(const QString &er);
