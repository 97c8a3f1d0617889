// SPDX-License-Identifier: MIT
// The plugin interface: a shared object that brings its own broad phases and hierarchy variants
// to cdlab without touching cdlab's sources. It exports one function, cdlab_plugin_v1 (the name
// carries the interface's generation), returning a cd_plugin: the ABI it was built for and the
// methods it provides. `[method] plugin = libmine.so` in a config, or `--plugin libmine.so` on
// `cdlab methods` and `cdlab verify`, loads it with dlopen; its methods are then used by name like
// cdlab's own, in `[method] method` and `[method] hierarchy`.
//
// A plugin's broad phase keeps the exactness contract of cd_broad.h; `cdlab verify --plugin` runs
// it against naive on the differential test's scenes. A hierarchy variant is a layer plan
// (cd_bvh_variant): cdlab builds, refits and traverses it as its own, so a plugin chooses which
// bounding volume sits at which depth (cd_bvh.h).
//
// A plugin needs only these headers (pkg-config cdlab); the functions it calls resolve to the
// program that loads it (cdlab exports its own), or to libcdlab when linked against it. Nothing
// runs at load: no constructors are needed, and the entry point must not fail.
//
//     static const cd_broad_method *const methods[] = {&my_hash};
//     CD_PLUGIN_EXPORT const cd_plugin *cdlab_plugin_v1(void)
//     {
//         static const cd_plugin p = {CD_PLUGIN_VERSION_FIELDS, .name = "my_hash",
//                                     .methods = methods, .method_count = 1};
//         return &p;
//     }
#ifndef CD_PLUGIN_H
#define CD_PLUGIN_H

#include "cd_broad.h"
#include "cd_bvh.h"

/// The interface's ABI version. It changes whenever a structure a plugin fills or reads changes
/// incompatibly (cd_plugin, cd_broad_method, cd_scene, cd_bvh_variant and what they point to).
/// 2: cd_broad_method.cells; 3: methods and variants declare their parameters (cd_param_spec
/// tables; create gets cd_params and the thread count), the plugin reports its build; 4:
/// cd_scene's move list names poses too (pose_noted), cd_broad_method.update_coherent; 5:
/// cd_scene.avx512 (the motion step's column loops chosen by the switches).
#define CD_PLUGIN_ABI 5
/// The exported entry point's name.
#define CD_PLUGIN_ENTRY "cdlab_plugin_v1"

/// What a plugin provides.
typedef struct cd_plugin {
    uint32_t abi;           ///< CD_PLUGIN_ABI of the headers the plugin was built with
    uint32_t method_size;   ///< sizeof(cd_broad_method) there (a second check of the ABI)
    uint32_t scene_size;    ///< sizeof(cd_scene) there
    uint32_t variant_size;  ///< sizeof(cd_bvh_variant) there
    const char *name;       ///< the plugin's name, for messages and meta.ini
    const char *build;      ///< CD_PLUGIN_BUILD: compiler and optimisation, for meta.ini
    int optimized;          ///< CD_PLUGIN_OPTIMIZED: 0 when built without optimisation (-O0)
    /// Broad phases: name (letters, digits, _; unique among all methods), description, create,
    /// update, candidates and destroy required; the optional fields as cd_broad.h says. A method's
    /// params table (cd_param_spec) gives it `[method] <name>` keys of its own, checked at load.
    const cd_broad_method *const *methods;
    size_t method_count;
    /// Hierarchy variants: name (as for methods, unique among variants), summary and plan
    /// required. The plan gets the values of the variant's own params table, and must return 1
    /// to CD_BVH_PLAN_MAX segments of enum cd_bv_kind kinds with increasing depths.
    const cd_bvh_variant *variants;
    size_t variant_count;
} cd_plugin;

/// 1 when the plugin is compiled with optimisation (GCC and Clang define __OPTIMIZE__ from -O1 on),
/// else 0: cdlab then warns that its times are not comparable (Meson's default buildtype, debug,
/// compiles with -O0).
#if defined(__OPTIMIZE__)
#define CD_PLUGIN_OPTIMIZED 1
#else
#define CD_PLUGIN_OPTIMIZED 0
#endif

#if defined(__OPTIMIZE_SIZE__)
#define CD_PLUGIN_OPT_TEXT "optimized for size (-Os)"
#elif defined(__OPTIMIZE__)
#define CD_PLUGIN_OPT_TEXT "optimized (-O1 or higher)"
#else
#define CD_PLUGIN_OPT_TEXT "unoptimized (-O0)"
#endif

#if defined(__clang__)
#define CD_PLUGIN_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define CD_PLUGIN_COMPILER "gcc " __VERSION__
#else
#define CD_PLUGIN_COMPILER "unknown compiler"
#endif

/// The plugin's build as its compiler saw it: "gcc 12.2.0, optimized (-O1 or higher)".
#define CD_PLUGIN_BUILD CD_PLUGIN_COMPILER ", " CD_PLUGIN_OPT_TEXT

/// The version fields of a cd_plugin initializer: {CD_PLUGIN_VERSION_FIELDS, .name = ..., ...};
/// they record the ABI and the build of the plugin's own compilation.
#define CD_PLUGIN_VERSION_FIELDS                                                                                      \
    .abi = CD_PLUGIN_ABI, .method_size = (uint32_t)sizeof(cd_broad_method), .scene_size = (uint32_t)sizeof(cd_scene), \
    .variant_size = (uint32_t)sizeof(cd_bvh_variant), .build = CD_PLUGIN_BUILD, .optimized = CD_PLUGIN_OPTIMIZED

/// Default visibility for the entry point, so a plugin built with -fvisibility=hidden exports it.
#define CD_PLUGIN_EXPORT __attribute__((visibility("default")))

/// The entry point every plugin defines (declared here so its signature is checked).
const cd_plugin *cdlab_plugin_v1(void);

#endif
