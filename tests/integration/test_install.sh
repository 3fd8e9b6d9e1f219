#!/usr/bin/env bash
# test_install.sh: what `cmake --install` and `cpack -G DEB` deliver, used the
# way a user uses it.
#
# usage: bash test_install.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO BUILD_DIR   (run by ctest)
#
# Owns the checks of packaging/ (install rules, libhprofwriter.pc, man pages,
# the Debian package) and of tests/install/writer_demo.c:
#  1. install into a temporary prefix: exactly the expected files, the
#     soname chain of libhprofwriter, its exported symbols (exactly the
#     HPROF_API functions of the installed headers), the agent's (Agent_*
#     only), each header compiling alone, man pages rendering without a
#     warning and describing every command and option the programs' own help
#     lists, and the one line saying the agent is off the JVM's path;
#  2. pkg-config: writer_demo.c and the README's example built against the
#     prefix, shared and fully static, run, and their files read by `hprof
#     verify` and VisualVM's heap library with exact counts, and the
#     example of libhprofwriter(3) too;
#  3. a real install with --prefix /usr (needs root or `sudo -n`; otherwise
#     the test fails at once and says so): hprof on PATH, `man -w`, pkg-config with no
#     PKG_CONFIG_PATH, and `java -agentlib:hprof=heap=sites` and -Xrunhprof
#     with no LD_LIBRARY_PATH on JDK 17 and JDK 25, exact SITES of AllocDemo;
#     every file installed is removed afterwards (install_manifest.txt, in a
#     trap), directories the install created too, and that is checked;
#  4. cpack -G DEB: the package's fields and file list (dpkg-deb).
set -euo pipefail

if [ $# -lt 5 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO BUILD_DIR" >&2
    exit 2
fi
BUILD=$(cd "$5" && pwd)
# agent_lib.sh: fail/step/expect_eq, compile, jrun, site helpers; it makes
# WORK afresh and cd's into it
# shellcheck source=agent_lib.sh
source "$(dirname "$0")/agent_lib.sh" "$1" "$2" "$3" "$4"
# the point of part 3 is that nothing but the install makes the agent found
unset LD_LIBRARY_PATH JAVA_TOOL_OPTIONS _JAVA_HPROF_OPTIONS PKG_CONFIG_PATH
JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
JDK17=${JDK17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JDK25=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
for j in "$JDK17" "$JDK25"; do
    [ -x "$j/bin/java" ] || fail "no JDK at $j: the installed agent is checked on JDK 17 and 25"
done
[ -f "$JAR" ] || fail "VisualVM's heap library is missing: $JAR (scripts/deps.sh installs it)"
for tool in pkg-config readelf nm groff man cc cpack dpkg-deb; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh)"
done
# part 3 needs root: say so at once rather than after the rest
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        fail "this test installs into /usr for real (the JVM finds -agentlib:hprof only there):" \
            "run it as root or with passwordless sudo (sudo -n true fails for $(id -un))"
    fi
fi
VERSION=$(sed -n 's/^project(hprof VERSION \([0-9.]*\) .*/\1/p' "$SRC/CMakeLists.txt")
[ -n "$VERSION" ] || fail "no project version in $SRC/CMakeLists.txt"

# The files an install holds, relative to the prefix (LIBDIR: GNUInstallDirs'
# choice for this build; the agent is in lib/ whatever it is).
LIBDIR=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$BUILD/CMakeCache.txt")
[ -n "$LIBDIR" ] || fail "CMAKE_INSTALL_LIBDIR is not in $BUILD/CMakeCache.txt"
EXPECTED_FILES="bin/hprof
bin/hprof-ctl
include/hprof/hprof_format.h
include/hprof/hr_reader.h
include/hprof/hv_readers.h
include/hprof/hv_verify.h
include/hprof/hw_writer.h
lib/libhprof.so
$LIBDIR/libhprofwriter.a
$LIBDIR/libhprofwriter.so
$LIBDIR/libhprofwriter.so.0
$LIBDIR/libhprofwriter.so.$VERSION
$LIBDIR/pkgconfig/libhprofwriter.pc
share/doc/hprof/README.md
share/doc/hprof/convert.md
share/doc/hprof/deadlocks.md
share/doc/hprof/heap-analysis.md
share/doc/hprof/heap-dump.md
share/doc/hprof/hprof-text.md
share/doc/hprof/redact.md
share/doc/hprof/report.md
share/doc/hprof/text-input.md
share/man/man1/hprof-ctl.1
share/man/man1/hprof.1
share/man/man3/libhprofwriter.3
share/man/man7/hprof-agent.7"
N_FILES=$(echo "$EXPECTED_FILES" | wc -l)

# check_installed ROOT PREFIX: the files above, under ROOT/PREFIX, as links and ELF say
check_installed() {
    local p=$1$2
    for f in $EXPECTED_FILES; do
        [ -e "$p/$f" ] || fail "$p/$f was not installed"
    done
    expect_eq "libhprofwriter.so ->" libhprofwriter.so.0 "$(readlink "$p/$LIBDIR/libhprofwriter.so")"
    expect_eq "libhprofwriter.so.0 ->" "libhprofwriter.so.$VERSION" "$(readlink "$p/$LIBDIR/libhprofwriter.so.0")"
    [ ! -L "$p/$LIBDIR/libhprofwriter.so.$VERSION" ] || fail "libhprofwriter.so.$VERSION is a link, not the library"
    expect_eq "SONAME of libhprofwriter" "[libhprofwriter.so.0]" \
        "$(readelf -d "$p/$LIBDIR/libhprofwriter.so.$VERSION" | sed -n 's/.*(SONAME).*soname: //p')"
    # the agent is a plugin: no versioned name, no link chain, no library it needs of ours
    [ ! -L "$p/lib/libhprof.so" ] || fail "$p/lib/libhprof.so is a symbolic link"
    expect_eq "SONAME of the agent" "[libhprof.so]" \
        "$(readelf -d "$p/lib/libhprof.so" | sed -n 's/.*(SONAME).*soname: //p')"
    local v
    for v in "$p"/lib/libhprof.so.*; do
        [ ! -e "$v" ] || fail "a versioned agent was installed: $v"
    done
    readelf -d "$p/lib/libhprof.so" | grep -q 'NEEDED.*libhprofwriter' &&
        fail "the agent needs libhprofwriter.so: it should link it statically"
    expect_eq "the agent's exported symbols" "Agent_OnAttach Agent_OnLoad Agent_OnUnload" \
        "$(nm -D --defined-only "$p/lib/libhprof.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort | xargs)"
    return 0
}

# --------------------------------------------------------------- part 1
PREFIX=$WORK/prefix
step "cmake --install $BUILD --prefix $PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >install.log 2>&1 || fail "cmake --install failed: $(tail -5 install.log)"
expect_eq "files installed" "$N_FILES" "$(cd "$PREFIX" && find . \( -type f -o -type l \) | wc -l)"
expect_eq "the list of files installed" "$EXPECTED_FILES" \
    "$(cd "$PREFIX" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)"
check_installed "" "$PREFIX"
expect_eq "installed agent (same bytes as the build's)" same \
    "$(cmp -s "$AGENT" "$PREFIX/lib/libhprof.so" && echo same || echo different)"
echo "   ok: $N_FILES files, libhprofwriter.so -> .so.0 -> .so.$VERSION, SONAME libhprofwriter.so.0"

step "the install says, in one line, that $PREFIX/lib is off the JVM's path, and what to do"
note=$(grep -c "hprof: $PREFIX/lib/libhprof.so is not on the JVM's library path: use java -agentpath:$PREFIX/lib/libhprof.so=..., or install with --prefix /usr" install.log || true)
expect_eq "lines of the note in the install's output" 1 "$note"

step "libhprofwriter exports exactly the HPROF_API functions of its installed headers"
nm -D --defined-only "$PREFIX/$LIBDIR/libhprofwriter.so" | awk '$2 ~ /^[TDBRVWi]$/ {print $3}' |
    LC_ALL=C sort >exported.txt
sed -n 's/^HPROF_API[^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' "$PREFIX"/include/hprof/*.h | LC_ALL=C sort >api.txt
n_api=$(wc -l <api.txt)
[ "$n_api" -ge 70 ] || fail "only $n_api HPROF_API declarations found in the headers: the sed above is broken"
expect_eq "exported symbols that are not HPROF_API functions" "" "$(comm -23 exported.txt api.txt | xargs)"
expect_eq "HPROF_API functions not exported" "" "$(comm -13 exported.txt api.txt | xargs)"
bad=$(grep -vE '^(hw|hr|hv|hprof)_' exported.txt || true)
expect_eq "exported names outside hw_/hr_/hv_/hprof_" "" "$bad"
echo "   ok: $(wc -l <exported.txt) symbols exported, all $n_api HPROF_API functions"

step "each installed header compiles alone, from the prefix (C11 and C99, -pedantic)"
for h in "$PREFIX"/include/hprof/*.h; do
    for std in c11 c99; do
        printf '#include <hprof/%s>\nint main(void) { return 0; }\n' "$(basename "$h")" >hdr.c
        cc -std=$std -pedantic -Wall -Wextra -Werror -I"$PREFIX/include" -c hdr.c -o hdr.o 2>hdr.err ||
            fail "<hprof/$(basename "$h")> does not compile alone with -std=$std: $(head -5 hdr.err)"
    done
done
echo "   ok: $(ls "$PREFIX"/include/hprof/*.h | wc -l) headers"

step "man pages render without warnings, and describe what the programs' help lists"
for m in man1/hprof.1 man1/hprof-ctl.1 man3/libhprofwriter.3 man7/hprof-agent.7; do
    page=$PREFIX/share/man/$m
    groff -man -Tutf8 -ww -z "$page" 2>groff.err
    expect_eq "groff warnings for $m" "" "$(cat groff.err)"
    MANWIDTH=80 man -l "$page" >man.txt 2>man.err || fail "man -l $m failed: $(cat man.err)"
    expect_eq "man -l warnings for $m" "" "$(grep -v '^$' man.err || true)"
    name=$(basename "$m" | sed 's/\.[0-9]$//')
    grep -q "^NAME" man.txt && grep -q "^       $name" man.txt ||
        fail "$m: no NAME section naming $name"
done
# every command of `hprof help`, and the ones other branches add, has an entry
"$HPROF" help >hprof-help.txt
cmds=$(sed -n '/^commands:/,/^$/p' hprof-help.txt | awk '/^  [a-z]/ {print $1}')
# (the parse is checked against the commands this page was written with;
# commands added later are checked below like these)
for c in info verify histo sites print samples collapsed fixture help; do
    echo "$cmds" | grep -qx "$c" || fail "hprof help lists no command $c (or this test reads it wrongly): $(echo $cmds)"
done
MANWIDTH=200 man -l "$PREFIX/share/man/man1/hprof.1" >hprof.man 2>/dev/null
cmds=$(printf '%s\n' $cmds disasm asm redact convert | sort -u)
for c in $cmds; do
    grep -qE "^       $c( |$)" hprof.man || fail "hprof.1 has no entry for the command $c"
done
for o in $(grep -oE -- '--[a-z-]+' hprof-help.txt | sort -u); do
    grep -q -- "$o" hprof.man || fail "hprof.1 does not mention $o (in hprof help)"
done
"$HPROF" fixture --help >fixture-help.txt
for o in $(grep -oE -- '--[a-z-]+' fixture-help.txt | sort -u); do
    grep -q -- "$o" hprof.man || fail "hprof.1 does not mention fixture's $o"
done
# the commands with a --help of their own: every option of it
for c in convert redact; do
    "$HPROF" "$c" --help >"$c-help.txt" 2>&1 || true
    n=0
    for o in $(grep -oE -- '(^|[ [])--?[a-z][a-z-]*' "$c-help.txt" | sed 's/^[ [ ]*//' | sort -u); do
        n=$((n + 1))
        grep -q -- "$o" hprof.man || fail "hprof.1 does not mention $c's $o (in hprof $c --help)"
    done
    [ "$n" -ge 3 ] || fail "only $n options read from hprof $c --help"
done
# hprof-ctl: every option and command of its help
"$PREFIX/bin/hprof-ctl" --help >ctl-help.txt
MANWIDTH=200 man -l "$PREFIX/share/man/man1/hprof-ctl.1" >ctl.man 2>/dev/null
ctl_words=$( { grep -oE -- '--[a-z-]+' ctl-help.txt
               sed -n '/^commands/,/^Commands from/p' ctl-help.txt | awk '/^  [a-z]/ {print $1}' | tr -d ,; } | sort -u)
n_ctl=$(echo "$ctl_words" | wc -l)
[ "$n_ctl" -ge 24 ] || fail "only $n_ctl options and commands read from hprof-ctl --help"
for wd in $ctl_words; do
    grep -qE -- "(^| )$wd( |,|$)" ctl.man || fail "hprof-ctl.1 does not describe '$wd' (in hprof-ctl --help)"
done
# the agent: every option= of its help, in the JDK's words
"$JDK17/bin/java" -agentpath:"$PREFIX/lib/libhprof.so"=help >agent-help.txt 2>&1 || true
opts=$(awk '/^Option/ {on = 1; next} on && /^[a-z_]+=/ {sub(/=.*/, ""); print} /^Examples/ {on = 0}' agent-help.txt)
for o in heap cpu monitor format file net depth interval cutoff lineno thread doe msa force verbose sample idsize shape redact gzip; do
    echo "$opts" | grep -qx "$o" || fail "the agent's help lists no option $o= (or this test reads it wrongly): $(echo $opts)"
done
MANWIDTH=200 man -l "$PREFIX/share/man/man7/hprof-agent.7" >agent.man 2>/dev/null
for o in $opts; do
    grep -qE "^       $o=" agent.man || fail "hprof-agent.7 has no entry for $o="
done
echo "   ok: 4 pages; hprof.1: $(echo $cmds | wc -w) commands; hprof-ctl.1: $n_ctl words; hprof-agent.7: $(echo $opts | wc -w) options"

# --------------------------------------------------------------- part 2
export PKG_CONFIG_PATH=$PREFIX/$LIBDIR/pkgconfig
step "pkg-config (PKG_CONFIG_PATH=$PKG_CONFIG_PATH)"
pc() { pkg-config "$@" | sed 's/ *$//'; } # it ends its output with a space
expect_eq "pkg-config --modversion" "$VERSION" "$(pc --modversion libhprofwriter)"
expect_eq "pkg-config --cflags" "-I$PREFIX/include" "$(pc --cflags libhprofwriter)"
expect_eq "pkg-config --libs" "-L$PREFIX/$LIBDIR -lhprofwriter" "$(pc --libs libhprofwriter)"
expect_eq "pkg-config --static --libs" "-L$PREFIX/$LIBDIR -lhprofwriter -pthread -lz" \
    "$(pc --static --libs libhprofwriter)"

mkdir -p vvc
"$JDK17/bin/javac" -Xlint:all -Werror --release 17 -cp "$JAR" -d vvc "$SRC/tests/integration/VvmCheck.java" ||
    fail "javac VvmCheck.java failed"
# what writer_demo.c promises (its header comment)
DEMO_EXPECT=("com.example.Point=3" "java.lang.String=1" "byte[]=1" "com.example.Point[]=1"
    --classes 5 --roots 6 --root-kind "sticky class=4" --root-kind "JNI global=2"
    --string "hello, hprof" --array "com.example.Point[]=4:3"
    --total-instances 6 --summary-instances 6 --check-refs)
# vvm FILE EXPECTATIONS...: VisualVM on JDK 17 and 25 agrees
vvm() {
    local f=$1
    shift
    for j in "$JDK17" "$JDK25"; do
        rm -rf "$f.hwcache"
        "$j/bin/java" -cp "$JAR:vvc" VvmCheck "$f" "$@" >vvm.out 2>&1 ||
            fail "VisualVM ($j) disagrees with $f: $(cat vvm.out)"
    done
    echo "   ok: VisualVM (JDK 17, 25): $(sed -n 's/^VisualVM read [^:]*: //p' vvm.out)"
}

step "writer_demo.c linked with the shared library"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o demo-shared "$SRC/tests/install/writer_demo.c" \
    $(pkg-config --cflags --libs libhprofwriter) || fail "writer_demo.c does not build with pkg-config"
readelf -d demo-shared | grep -q 'NEEDED.*\[libhprofwriter\.so\.0\]' ||
    fail "demo-shared does not need libhprofwriter.so.0: $(readelf -d demo-shared | grep NEEDED)"
LD_LIBRARY_PATH=$PREFIX/$LIBDIR ./demo-shared shared.hprof || fail "demo-shared failed"
"$HPROF" verify shared.hprof >verify.txt || fail "hprof verify: $(cat verify.txt)"
expect_eq "hprof verify of shared.hprof" "shared.hprof: 0 error(s), 0 warning(s)" "$(grep '^shared.hprof:' verify.txt)"
expect_eq "hprof histo total of shared.hprof" "Total 6 160" "$("$HPROF" histo shared.hprof | awk '/^Total/ {print $1, $2, $3}')"
vvm shared.hprof "${DEMO_EXPECT[@]}"
expect_eq "writer_demo's error on an unwritable path (exit status)" 1 \
    "$(LD_LIBRARY_PATH=$PREFIX/$LIBDIR ./demo-shared /nonexistent/x.hprof 2>err.txt; echo $?)"
grep -q '^writer_demo: /nonexistent/x.hprof: No such file or directory$' err.txt ||
    fail "writer_demo's message for /nonexistent/x.hprof: $(cat err.txt)"

step "writer_demo.c linked statically (cc -static, pkg-config --static)"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -static -o demo-static "$SRC/tests/install/writer_demo.c" \
    $(pkg-config --static --cflags --libs libhprofwriter) || fail "writer_demo.c does not link statically"
readelf -d demo-static 2>&1 | grep -q 'There is no dynamic section' ||
    fail "demo-static is not static: $(readelf -d demo-static | grep NEEDED)"
./demo-static static.hprof || fail "demo-static failed"
expect_eq "histo of the static build's file" "$("$HPROF" histo shared.hprof)" "$("$HPROF" histo static.hprof)"
vvm static.hprof "${DEMO_EXPECT[@]}"

step "the README's example (## Use the library from C) compiles as printed and writes a valid dump"
awk '/^## Use the library from C/ {on = 1} on && /^```c$/ {code = 1; next} code && /^```$/ {exit} code {print}' \
    "$SRC/README.md" >readme_example.c
n_lines=$(wc -l <readme_example.c)
[ "$n_lines" -ge 10 ] || fail "no C example found in the README's 'Use the library from C' section"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o readme-example readme_example.c $(pkg-config --cflags --libs libhprofwriter) ||
    fail "the README's example does not compile"
LD_LIBRARY_PATH=$PREFIX/$LIBDIR ./readme-example || fail "the README's example failed"
[ -f x.hprof ] || fail "the README's example wrote no x.hprof"
"$HPROF" verify x.hprof >verify.txt || fail "hprof verify x.hprof: $(cat verify.txt)"
expect_eq "hprof histo of the README's x.hprof" "Total 1 16" "$("$HPROF" histo x.hprof | awk '/^Total/ {print $1, $2, $3}')"
echo "   ok: $n_lines lines, x.hprof verified"

step "the example of libhprofwriter(3), as man prints it, compiles and writes a valid dump"
rm -f x.hprof
MANWIDTH=120 man -l "$PREFIX/share/man/man3/libhprofwriter.3" 2>/dev/null |
    awk '/^EXAMPLE/ {on = 1; next} /^[A-Z]/ {on = 0} on' |
    sed -n '/#include <stdio.h>/,/^           }$/p' | sed 's/^           //' >man_example.c
n_lines=$(wc -l <man_example.c)
[ "$n_lines" -ge 10 ] || fail "no example found in libhprofwriter(3)'s EXAMPLE section"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o man-example man_example.c $(pkg-config --cflags --libs libhprofwriter) ||
    fail "the example of libhprofwriter(3) does not compile"
LD_LIBRARY_PATH=$PREFIX/$LIBDIR ./man-example || fail "the example of libhprofwriter(3) failed"
"$HPROF" verify x.hprof >verify.txt || fail "hprof verify x.hprof (man page): $(cat verify.txt)"
expect_eq "hprof histo of the man page's x.hprof" "Total 1 16" "$("$HPROF" histo x.hprof | awk '/^Total/ {print $1, $2, $3}')"
echo "   ok: $n_lines lines, x.hprof verified"

# --------------------------------------------------------------- part 3
# one install into /usr at a time on this machine
exec 8>/tmp/hprof-test-install.lock
flock -w 600 8 || fail "another test_install.sh holds /tmp/hprof-test-install.lock"

step "a staged install (DESTDIR) lists what --prefix /usr will write; none of it may exist yet"
DESTDIR=$WORK/stage cmake --install "$BUILD" --prefix /usr >stage.log 2>&1 || fail "staged install failed: $(tail -5 stage.log)"
check_installed "$WORK/stage" /usr
(cd "$WORK/stage" && find . \( -type f -o -type l \) | sed 's|^\.||' | LC_ALL=C sort) >usr-files.txt
expect_eq "files of the staged install" "$N_FILES" "$(wc -l <usr-files.txt)"
while read -r f; do
    [ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f already exists: this test will not overwrite or remove it"
done <usr-files.txt
# the directories the install will create, deepest first, to remove after
while read -r f; do
    d=$(dirname "$f")
    while [ ! -d "$d" ]; do echo "$d"; d=$(dirname "$d"); done
done <usr-files.txt | sort -u | awk '{print length, $0}' | sort -rn | cut -d' ' -f2- >usr-dirs.txt

cleanup_usr() {
    local f
    [ -f "$WORK/usr-manifest.txt" ] || cp "$BUILD/install_manifest.txt" "$WORK/usr-manifest.txt" 2>/dev/null || true
    cat "$WORK/usr-manifest.txt" "$WORK/usr-files.txt" 2>/dev/null | sort -u | while read -r f; do
        case $f in /usr/*) $SUDO rm -f "$f" ;; esac
    done
    while read -r f; do $SUDO rmdir "$f" 2>/dev/null || true; done <"$WORK/usr-dirs.txt"
}
trap cleanup_usr EXIT
trap 'exit 1' TERM INT HUP # (the EXIT trap runs then too)

compile AllocDemo
step "before the install, no JDK finds an agent named hprof (so the install is what makes it found)"
for JDK in "$JDK17" "$JDK25"; do
    rc=0
    "$JDK/bin/java" -agentlib:hprof=heap=sites -version >pre.out 2>&1 || rc=$?
    expect_eq "$(basename "$JDK"): exit status of -agentlib:hprof before the install" 1 "$rc"
    grep -q "Could not find agent library hprof on the library path" pre.out ||
        fail "$(basename "$JDK"): -agentlib:hprof before the install: $(head -3 pre.out)"
done

step "cmake --install $BUILD --prefix /usr (removed at the end)"
$SUDO cmake --install "$BUILD" --prefix /usr >usr.log 2>&1 || fail "install into /usr failed: $(tail -5 usr.log)"
if [ -n "$SUDO" ]; then # what the install wrote into the build tree stays the user's
    $SUDO chown "$(id -u):$(id -g)" "$BUILD/install_manifest.txt" "$BUILD/packaging/libhprofwriter.pc"
fi
cp "$BUILD/install_manifest.txt" usr-manifest.txt
expect_eq "install_manifest.txt (what will be removed)" "$(cat usr-files.txt)" "$(LC_ALL=C sort usr-manifest.txt)"
check_installed "" /usr
expect_eq "the off-path note with --prefix /usr" 0 "$(grep -c "not on the JVM's library path" usr.log || true)"
expect_eq "hprof on PATH" /usr/bin/hprof "$(PATH=/usr/local/bin:/usr/bin:/bin command -v hprof)"
expect_eq "man -w hprof-agent" /usr/share/man/man7/hprof-agent.7 "$(man -w hprof-agent)"
expect_eq "pkg-config --libs with no PKG_CONFIG_PATH" "-lhprofwriter" "$(env -u PKG_CONFIG_PATH pkg-config --libs libhprofwriter | sed 's/ *$//')"
# shellcheck disable=SC2046
env -u PKG_CONFIG_PATH cc -o demo-usr "$SRC/tests/install/writer_demo.c" $(env -u PKG_CONFIG_PATH pkg-config --cflags --libs libhprofwriter) ||
    fail "writer_demo.c does not build against /usr"
./demo-usr usr.hprof || fail "writer_demo against /usr/$LIBDIR failed (no LD_LIBRARY_PATH)"
expect_eq "histo of usr.hprof" "$("$HPROF" histo shared.hprof)" "$(hprof histo usr.hprof)"

T=4
P=25000
L_PAYLOAD=$(line_of AllocDemo.java ALLOC-SITE-PAYLOAD)
L_TEMP=$(line_of AllocDemo.java ALLOC-SITE-TEMP)
for JDK in "$JDK17" "$JDK25"; do
    JAVA=$JDK/bin/java
    CTX=$(basename "$JDK")
    for spelling in "-agentlib:hprof=" "-Xrunhprof:"; do
        out=sites-$CTX-${spelling%%[:=]*}.txt
        out=${out/--/-}
        step "java $spelling""heap=sites,cutoff=0,file=$out AllocDemo $T $P   (LD_LIBRARY_PATH unset)"
        jrun "${out%.txt}" 0 no "$spelling""heap=sites,cutoff=0,file=$out" -cp classes AllocDemo $T $P
        [ -s "$out" ] || fail "no $out: the JVM did not load the installed agent: $(head -3 "${out%.txt}.err")"
        # Payload (int, long) and Temp: 24 bytes each, compressed class pointers
        check_site "$out" 'AllocDemo$Payload' "AllocDemo.allocate(AllocDemo.java:$L_PAYLOAD)" 0 \
            $((T * P)) $((T * P * 24)) $((T * P)) $((T * P * 24))
        check_site "$out" 'AllocDemo$Temp' "AllocDemo.churn(AllocDemo.java:$L_TEMP)" 0 $((T * P)) $((T * P * 24)) 0 0
    done
done
CTX=""

step "removing the /usr install"
trap - EXIT
cleanup_usr
left=""
while read -r f; do
    if [ -e "$f" ] || [ -L "$f" ]; then left="$left $f"; fi
done <usr-files.txt
while read -r d; do [ ! -d "$d" ] || left="$left $d/"; done <usr-dirs.txt
expect_eq "files and directories left in /usr" "" "$left"
echo "   ok: $(wc -l <usr-files.txt) files and $(wc -l <usr-dirs.txt) directories removed"
exec 8>&-

# --------------------------------------------------------------- part 4
step "cpack -G DEB"
(cd "$WORK" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/deb" >cpack.log 2>&1) ||
    fail "cpack failed: $(tail -5 cpack.log)"
deb=$(ls "$WORK"/deb/*.deb)
expect_eq "the .deb's name" "hprof_${VERSION}_amd64.deb" "$(basename "$deb")"
expect_eq "Package" hprof "$(dpkg-deb -f "$deb" Package)"
expect_eq "Version" "$VERSION" "$(dpkg-deb -f "$deb" Version)"
expect_eq "Depends" "zlib1g, libc6" "$(dpkg-deb -f "$deb" Depends)"
[ -n "$(dpkg-deb -f "$deb" Maintainer)" ] || fail "the .deb has no Maintainer"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||' | LC_ALL=C sort >deb-files.txt
expect_eq "the .deb's files" "$(sed 's|^/||' usr-files.txt)" "$(cat deb-files.txt)"
echo "   ok: $(basename "$deb"): $(wc -l <deb-files.txt) files under /usr, Depends: $(dpkg-deb -f "$deb" Depends)"

echo "test_install: all checks passed"
