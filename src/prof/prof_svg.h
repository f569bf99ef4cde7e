/* Internals of the flame graph writer (prof_svg.c, prof_svg_js.c). */
#ifndef LATLAB_PROF_SVG_H
#define LATLAB_PROF_SVG_H

extern const char prof_svg_script[];

#endif
