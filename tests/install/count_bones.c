/* A third-party program of animesh: loads the viewer skeleton named on the command line and
 * prints its bone count. Built against the INSTALLED library only (tests/install/install.sh). */
#include <stdio.h>

#include <animesh/animesh.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: count_bones avatar_skeleton.xml\n");
        return 2;
    }
    am_skeleton skel;
    am_error err;
    if (am_skeleton_load(argv[1], &skel, &err) != AM_OK) {
        char msg[AM_ERROR_TEXT_MAX];
        fprintf(stderr, "count_bones: %s\n", am_error_format(&err, msg, sizeof msg));
        return 1;
    }
    printf("%zu\n", skel.bone_count);
    am_skeleton_free(&skel);
    return 0;
}
