// Entry point; the command line is wired in app/inspect.cpp.
int main() { return 0; }
