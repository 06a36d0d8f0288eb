40 pit
