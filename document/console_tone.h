// How a line for the console reads: the program's own output (stderr apart), or llmscope's
// voice (information, a warning, a failure, a step of a hunt or report). The jobs that say
// lines and the console that shows them share it.
#pragma once

enum class ConsoleTone { Output, ErrorOutput, Info, Warning, Failure, Step };
